//===--- StageProtocolCheck.cpp - linpipe clang-tidy checks ---------------===//

#include "StageProtocolCheck.h"

namespace linpipe::tidy {

void StageProtocolCheck::registerMatchers(clang::ast_matchers::MatchFinder *Finder) {
  registerFunctionMatchers(Finder);
}

void StageProtocolCheck::check(const clang::ast_matchers::MatchFinder::MatchResult &Result) {
  analyzeMatch(Result);
}

} // namespace linpipe::tidy
