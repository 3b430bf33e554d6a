//===--- LinearCheckBase.h - linpipe clang-tidy checks ----------*- C++ -*-===//
//
// What linpipe-linear-stage and linpipe-stage-protocol share: the annotation
// options, the matchers (every function definition and lambda), the bail-out on
// translation units that do not compile, the per-function flow analysis, and the
// de-duplication of findings across template instantiations. Each check reports
// its own category of findings. Each function is analysed once for both checks: the two share
// the findings (and the helpers' summaries) of the translation unit.
//
//===----------------------------------------------------------------------===//

#ifndef LINPIPE_CHECKER_LINEARCHECKBASE_H
#define LINPIPE_CHECKER_LINEARCHECKBASE_H

#include "ClangTidyCheck.h"
#include "LinearDiagnostics.h"
#include "LinearTypeModel.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringSet.h"
#include <memory>

namespace linpipe::tidy {

class LinearCheckBase : public clang::tidy::ClangTidyCheck {
protected:
  enum class Category { Linearity, Protocol };

  LinearCheckBase(llvm::StringRef Name, clang::tidy::ClangTidyContext *Context,
                  Category Reports);

  void storeOptions(clang::tidy::ClangTidyOptions::OptionMap &Opts) override;
  void onStartOfTranslationUnit() override;
  void registerPPCallbacks(const clang::SourceManager &SM, clang::Preprocessor *PP,
                           clang::Preprocessor *ModuleExpanderPP) override;

  void registerFunctionMatchers(clang::ast_matchers::MatchFinder *Finder);
  void analyzeMatch(const clang::ast_matchers::MatchFinder::MatchResult &Result);

private:
  struct SharedAnalysis;
  struct UnitState;
  static std::shared_ptr<UnitState> unitStateFor(const clang::tidy::ClangTidyContext *Context);
  static std::shared_ptr<SharedAnalysis> sharedFor(const clang::tidy::ClangTidyContext *Context,
                                                   const LinearAnnotations &Names,
                                                   bool ReportEscapes);
  static LinearAnnotations readAnnotations(const OptionsView &Options);
  bool shouldAnalyze(const clang::FunctionDecl *FD, const clang::SourceManager &SM) const;
  void analyzeFunction(const clang::FunctionDecl *FD, clang::ASTContext &Context);
  void emitOnce(const Finding &F);

  const Category Reports;
  const bool ReportEscapes;
  const bool FindingsAsErrors; // FindingSeverity: error
  LinearTypeModel Model;
  std::shared_ptr<SharedAnalysis> Shared;
  std::shared_ptr<UnitState> Unit;
  llvm::DenseSet<const clang::FunctionDecl *> Analyzed;
  llvm::StringSet<> Emitted;
};

} // namespace linpipe::tidy

#endif // LINPIPE_CHECKER_LINEARCHECKBASE_H
