//===--- LinearStageCheck.cpp - linpipe clang-tidy checks -----------------===//

#include "LinearStageCheck.h"

namespace linpipe::tidy {

void LinearStageCheck::registerMatchers(clang::ast_matchers::MatchFinder *Finder) {
  registerFunctionMatchers(Finder);
}

void LinearStageCheck::check(const clang::ast_matchers::MatchFinder::MatchResult &Result) {
  analyzeMatch(Result);
}

} // namespace linpipe::tidy
