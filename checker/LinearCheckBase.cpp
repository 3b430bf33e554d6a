//===--- LinearCheckBase.cpp - linpipe clang-tidy checks ------------------===//

#include "LinearCheckBase.h"
#include "LinearFlowAnalysis.h"
#include "clang/AST/ExprCXX.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/ASTMatchers/ASTMatchers.h"
#include "clang/Basic/Diagnostic.h"
#include "llvm/Support/raw_ostream.h"

using namespace clang;
using namespace clang::ast_matchers;

namespace linpipe::tidy {

LinearCheckBase::LinearCheckBase(StringRef Name, clang::tidy::ClangTidyContext *Context,
                                 Category Reports)
    : ClangTidyCheck(Name, Context), Reports(Reports),
      ReportEscapes(Options.getLocalOrGlobal("ReportEscapes", true)),
      Model(readAnnotations(Options)) {}

// The annotation names may be set once for both checks (a global option) or per check.
LinearAnnotations LinearCheckBase::readAnnotations(const OptionsView &Options) {
  LinearAnnotations Defaults;
  LinearAnnotations A;
  A.Linear = Options.getLocalOrGlobal("LinearAnnotation", Defaults.Linear).str();
  A.Consume = Options.getLocalOrGlobal("ConsumeAnnotation", Defaults.Consume).str();
  A.Arrives = Options.getLocalOrGlobal("ArrivesAnnotation", Defaults.Arrives).str();
  A.Signals = Options.getLocalOrGlobal("SignalsAnnotation", Defaults.Signals).str();
  A.NeedsSignal = Options.getLocalOrGlobal("NeedsSignalAnnotation", Defaults.NeedsSignal).str();
  A.HandOff = Options.getLocalOrGlobal("HandOffAnnotation", Defaults.HandOff).str();
  A.Acquires = Options.getLocalOrGlobal("AcquireAnnotation", Defaults.Acquires).str();
  return A;
}

void LinearCheckBase::storeOptions(clang::tidy::ClangTidyOptions::OptionMap &Opts) {
  const LinearAnnotations &A = Model.annotations();
  Options.store(Opts, "LinearAnnotation", A.Linear);
  Options.store(Opts, "ConsumeAnnotation", A.Consume);
  Options.store(Opts, "ArrivesAnnotation", A.Arrives);
  Options.store(Opts, "SignalsAnnotation", A.Signals);
  Options.store(Opts, "NeedsSignalAnnotation", A.NeedsSignal);
  Options.store(Opts, "HandOffAnnotation", A.HandOff);
  Options.store(Opts, "AcquireAnnotation", A.Acquires);
  if (Reports == Category::Linearity)
    Options.store(Opts, "ReportEscapes", ReportEscapes);
}

void LinearCheckBase::onStartOfTranslationUnit() {
  Model.reset();
  Analyzed.clear();
  Emitted.clear();
}

void LinearCheckBase::registerFunctionMatchers(MatchFinder *Finder) {
  Finder->addMatcher(functionDecl(isDefinition()).bind("function"), this);
  // Lambda call operators are not visited as declarations: reach them from the lambda.
  Finder->addMatcher(lambdaExpr().bind("lambda"), this);
}

bool LinearCheckBase::shouldAnalyze(const FunctionDecl *FD, const SourceManager &SM) const {
  return FD && FD->doesThisDeclarationHaveABody() && !FD->isInvalidDecl() &&
         !FD->isDependentContext() && !FD->isDefaulted() && !FD->isDeleted() &&
         !FD->isFromASTFile() && !SM.isInSystemHeader(FD->getLocation());
}

void LinearCheckBase::analyzeMatch(const MatchFinder::MatchResult &Result) {
  // On a translation unit that does not compile the AST may be partial: say nothing.
  // Warnings promoted to errors (-Werror=consumed) do not count.
  const DiagnosticsEngine &Diags = Result.Context->getDiagnostics();
  if (Diags.hasUncompilableErrorOccurred() || Diags.hasFatalErrorOccurred())
    return;
  if (const auto *FD = Result.Nodes.getNodeAs<FunctionDecl>("function"))
    return analyzeFunction(FD, *Result.Context);
  const auto *L = Result.Nodes.getNodeAs<LambdaExpr>("lambda");
  if (!L)
    return;
  const CXXMethodDecl *Call = L->getCallOperator();
  if (!Call)
    return;
  // A generic lambda: analyse each instantiation of its call operator.
  if (const FunctionTemplateDecl *T = Call->getDescribedFunctionTemplate()) {
    for (const FunctionDecl *Spec : T->specializations())
      analyzeFunction(Spec, *Result.Context);
    return;
  }
  analyzeFunction(Call, *Result.Context);
}

void LinearCheckBase::analyzeFunction(const FunctionDecl *FD, ASTContext &Context) {
  if (!shouldAnalyze(FD, Context.getSourceManager()) || !Analyzed.insert(FD).second)
    return;
  LinearFlowAnalysis Analysis(Model, Context, ReportEscapes);
  for (const Finding &F : Analysis.analyze(FD))
    if (isProtocolFinding(F.Kind) == (Reports == Category::Protocol))
      emitOnce(F);
}

// Template instantiations share source locations: report each finding once.
void LinearCheckBase::emitOnce(const Finding &F) {
  std::string Key;
  llvm::raw_string_ostream OS(Key);
  OS << static_cast<int>(F.Kind) << ':' << F.Loc.getRawEncoding() << ':' << F.Name << ':'
     << static_cast<int>(F.Exit) << ':' << static_cast<int>(F.Escape) << ':'
     << static_cast<int>(F.UseAfter) << ':' << F.Definite << ':' << F.IsParameter;
  if (Emitted.insert(OS.str()).second)
    emitFinding(*this, Model, F);
}

} // namespace linpipe::tidy
