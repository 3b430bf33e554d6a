//===--- LinearStageCheck.h - linpipe clang-tidy checks ---------*- C++ -*-===//
//
// linpipe-linear-stage: every value of a linear class (annotated
// "linpipe::linear") is consumed exactly once on every path: not leaked, not
// released twice, not used after release or move, not discarded, not stored where
// the analysis cannot follow it.
//
// Documentation: checker/docs/linpipe-linear-stage.md
//
//===----------------------------------------------------------------------===//

#ifndef LINPIPE_CHECKER_LINEARSTAGECHECK_H
#define LINPIPE_CHECKER_LINEARSTAGECHECK_H

#include "LinearCheckBase.h"

namespace linpipe::tidy {

class LinearStageCheck : public LinearCheckBase {
public:
  LinearStageCheck(llvm::StringRef Name, clang::tidy::ClangTidyContext *Context)
      : LinearCheckBase(Name, Context, Category::Linearity) {}
  bool isLanguageVersionSupported(const clang::LangOptions &LangOpts) const override {
    return LangOpts.CPlusPlus11;
  }
  void registerMatchers(clang::ast_matchers::MatchFinder *Finder) override;
  void check(const clang::ast_matchers::MatchFinder::MatchResult &Result) override;
};

} // namespace linpipe::tidy

#endif // LINPIPE_CHECKER_LINEARSTAGECHECK_H
