//===--- LinearCheckBase.h - linpipe clang-tidy checks ----------*- C++ -*-===//
//
// What linpipe-linear-stage and linpipe-stage-protocol share: the annotation
// options, the matchers (every function definition and lambda), the bail-out on
// translation units that do not compile, the per-function flow analysis, and the
// de-duplication of findings across template instantiations. Each check reports
// its own category of findings.
//
//===----------------------------------------------------------------------===//

#ifndef LINPIPE_CHECKER_LINEARCHECKBASE_H
#define LINPIPE_CHECKER_LINEARCHECKBASE_H

#include "ClangTidyCheck.h"
#include "LinearDiagnostics.h"
#include "LinearTypeModel.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringSet.h"

namespace linpipe::tidy {

class LinearCheckBase : public clang::tidy::ClangTidyCheck {
protected:
  enum class Category { Linearity, Protocol };

  LinearCheckBase(llvm::StringRef Name, clang::tidy::ClangTidyContext *Context,
                  Category Reports);

  void storeOptions(clang::tidy::ClangTidyOptions::OptionMap &Opts) override;
  void onStartOfTranslationUnit() override;

  void registerFunctionMatchers(clang::ast_matchers::MatchFinder *Finder);
  void analyzeMatch(const clang::ast_matchers::MatchFinder::MatchResult &Result);

private:
  static LinearAnnotations readAnnotations(const OptionsView &Options);
  bool shouldAnalyze(const clang::FunctionDecl *FD, const clang::SourceManager &SM) const;
  void analyzeFunction(const clang::FunctionDecl *FD, clang::ASTContext &Context);
  void emitOnce(const Finding &F);

  const Category Reports;
  const bool ReportEscapes;
  LinearTypeModel Model;
  llvm::DenseSet<const clang::FunctionDecl *> Analyzed;
  llvm::StringSet<> Emitted;
};

} // namespace linpipe::tidy

#endif // LINPIPE_CHECKER_LINEARCHECKBASE_H
