//===--- StageProtocolCheck.h - linpipe clang-tidy checks -------*- C++ -*-===//
//
// linpipe-stage-protocol: the barrier protocol of a linear stage. A consume that
// needs a signal ("linpipe::needs_signal", release_without_signal()) must follow a
// signalling use ("linpipe::signals": arrive(), mbar()) on some path; a consume that
// arrives ("linpipe::arrives", release()) must not follow an arrival (arrive()).
//
// Documentation: checker/docs/linpipe-stage-protocol.md
//
//===----------------------------------------------------------------------===//

#ifndef LINPIPE_CHECKER_STAGEPROTOCOLCHECK_H
#define LINPIPE_CHECKER_STAGEPROTOCOLCHECK_H

#include "LinearCheckBase.h"

namespace linpipe::tidy {

class StageProtocolCheck : public LinearCheckBase {
public:
  StageProtocolCheck(llvm::StringRef Name, clang::tidy::ClangTidyContext *Context)
      : LinearCheckBase(Name, Context, Category::Protocol) {}
  bool isLanguageVersionSupported(const clang::LangOptions &LangOpts) const override {
    return LangOpts.CPlusPlus11;
  }
  void registerMatchers(clang::ast_matchers::MatchFinder *Finder) override;
  void check(const clang::ast_matchers::MatchFinder::MatchResult &Result) override;
};

} // namespace linpipe::tidy

#endif // LINPIPE_CHECKER_STAGEPROTOCOLCHECK_H
