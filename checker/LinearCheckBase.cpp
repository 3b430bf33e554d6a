//===--- LinearCheckBase.cpp - linpipe clang-tidy checks ------------------===//

#include "LinearCheckBase.h"
#include "FunctionSummaries.h"
#include "LinearFlowAnalysis.h"
#include "ProxyFenceAnalysis.h"
#include "clang/AST/ExprCXX.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/ASTMatchers/ASTMatchers.h"
#include "clang/Basic/Diagnostic.h"
#include "clang/Lex/Preprocessor.h"
#include "llvm/Support/raw_ostream.h"
#include <map>
#include <mutex>
#include <string>
#include <tuple>

using namespace clang;
using namespace clang::ast_matchers;

namespace linpipe::tidy {

// What the checks of one clang-tidy context (with the same options) share: the findings of
// each function of the translation unit, both categories, and the helpers' summaries.
struct LinearCheckBase::SharedAnalysis {
  explicit SharedAnalysis(LinearAnnotations Names) : Model(std::move(Names)) {}
  void reset() {
    Model.reset();
    Summaries.reset();
    Findings.clear();
  }
  LinearTypeModel Model;
  std::unique_ptr<SummaryCache> Summaries; // made for the translation unit's ASTContext
  llvm::DenseMap<const FunctionDecl *, std::vector<Finding>> Findings;
};

// The one T for Key, alive while a check holds it (made from Args when there is none). clangd
// runs one clang-tidy context per file on its worker threads, hence the lock.
template <class T, class Key> struct InstanceRegistry {
  static inline std::mutex Lock;
  static inline std::map<Key, std::weak_ptr<T>> Map;
};
template <class T, class Key, class... Args>
static std::shared_ptr<T> sharedInstance(const Key &K, Args &&...Made) {
  std::lock_guard<std::mutex> Guard(InstanceRegistry<T, Key>::Lock);
  auto &Registry = InstanceRegistry<T, Key>::Map;
  for (auto It = Registry.begin(); It != Registry.end();)
    It = It->second.expired() ? Registry.erase(It) : std::next(It);
  if (std::shared_ptr<T> Existing = Registry[K].lock())
    return Existing;
  auto Instance = std::make_shared<T>(std::forward<Args>(Made)...);
  Registry[K] = Instance;
  return Instance;
}

// One SharedAnalysis per (context, options).
std::shared_ptr<LinearCheckBase::SharedAnalysis>
LinearCheckBase::sharedFor(const clang::tidy::ClangTidyContext *Context,
                           const LinearAnnotations &Names, bool ReportEscapes) {
  std::string Annotations;
  for (const auto &[Option, Field] : AnnotationOptions)
    Annotations += Names.*Field + '\n';
  return sharedInstance<SharedAnalysis>(
      std::tuple<const void *, std::string, bool>{Context, Annotations, ReportEscapes}, Names);
}

// Whether the translation unit compiled, decided once per unit for every linpipe check of a
// clang-tidy context, before any of them reports: in clangd the checks' diagnostics go to the
// compiler's own engine, so a finding reported as an error (FindingSeverity: error) would
// otherwise look like a compile error to the checks that run after it.
struct LinearCheckBase::UnitState {
  bool Decided = false;
  bool BailOut = false;
};

std::shared_ptr<LinearCheckBase::UnitState>
LinearCheckBase::unitStateFor(const clang::tidy::ClangTidyContext *Context) {
  return sharedInstance<UnitState>(static_cast<const void *>(Context));
}

LinearCheckBase::LinearCheckBase(StringRef Name, clang::tidy::ClangTidyContext *Context,
                                 Category Reports)
    : ClangTidyCheck(Name, Context), Reports(Reports),
      ReportEscapes(Options.getLocalOrGlobal("ReportEscapes", true)),
      FindingsAsErrors(Options.getLocalOrGlobal("FindingSeverity", "warning") == "error"),
      Model(readAnnotations(Options)),
      Shared(sharedFor(Context, Model.annotations(), ReportEscapes)),
      Unit(unitStateFor(Context)) {}

// The annotation names may be set once for both checks (a global option) or per check.
LinearAnnotations LinearCheckBase::readAnnotations(const OptionsView &Options) {
  LinearAnnotations Defaults;
  LinearAnnotations A;
  for (const auto &[Option, Field] : AnnotationOptions)
    A.*Field = Options.getLocalOrGlobal(Option, Defaults.*Field).str();
  return A;
}

void LinearCheckBase::storeOptions(clang::tidy::ClangTidyOptions::OptionMap &Opts) {
  const LinearAnnotations &A = Model.annotations();
  for (const auto &[Option, Field] : AnnotationOptions)
    Options.store(Opts, Option, A.*Field);
  Options.store(Opts, "FindingSeverity", FindingsAsErrors ? "error" : "warning");
  if (Reports == Category::Linearity)
    Options.store(Opts, "ReportEscapes", ReportEscapes);
}

// The bail-out below must tell a translation unit that does not compile from one whose only
// errors are promoted warnings (-Werror=consumed). Past the error limit (20 by default) clang
// adds a fatal "too many errors emitted", which is indistinguishable from a real one, and
// the checks would go silent on a file with many -Wconsumed findings: lift the limit.
void LinearCheckBase::registerPPCallbacks(const SourceManager &, Preprocessor *PP,
                                          Preprocessor *) {
  if (PP)
    PP->getDiagnostics().setErrorLimit(0);
}

void LinearCheckBase::onStartOfTranslationUnit() {
  // Every check's start comes before any match, so the shared state is reset in time.
  Shared->reset();
  Unit->Decided = false;
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
  if (!Unit->Decided) {
    const DiagnosticsEngine &Diags = Result.Context->getDiagnostics();
    Unit->BailOut = Diags.hasUncompilableErrorOccurred() || Diags.hasFatalErrorOccurred();
    Unit->Decided = true;
  }
  if (Unit->BailOut)
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
  auto [It, New] = Shared->Findings.try_emplace(FD);
  if (New) {
    if (!Shared->Summaries)
      Shared->Summaries = std::make_unique<SummaryCache>(Shared->Model, Context);
    LinearFlowAnalysis Analysis(Shared->Model, Context, ReportEscapes, Shared->Summaries.get());
    It->second = Analysis.analyze(FD);
    for (Finding &F : ProxyFenceAnalysis(Shared->Model, Context).analyze(FD))
      It->second.push_back(std::move(F));
  }
  for (const Finding &F : It->second)
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
  if (!Emitted.insert(OS.str()).second)
    return;
  Finding Shown = F;
  Shown.AsError = FindingsAsErrors;
  emitFinding(*this, Model, Shown);
}

} // namespace linpipe::tidy
