//===--- LinearFlowAnalysis.cpp - linpipe clang-tidy checks ---------------===//
//
// See LinearFlowAnalysis.h for the overview. The parts, one file each:
//   * FlowFacts.h, AstHelpers.cpp: the shared vocabulary and AST questions;
//   * FlowClassifier: where does one linear value go (use, consume, move, escape...);
//   * EventCollector: the values a function owns and the events on them;
//   * FlowSolver: the forward dataflow over the CFG, its fixpoint and the replay;
//   * here, LinearFlowAnalysis::analyze, which ties them together.
//
//===----------------------------------------------------------------------===//

#include "LinearFlowAnalysis.h"
#include "EventCollector.h"
#include "FunctionSummaries.h"
#include "FlowSolver.h"
#include "clang/AST/ParentMap.h"
#include "llvm/ADT/DenseSet.h"

using namespace clang;

namespace linpipe::tidy {

using namespace flow;

//===----------------------------------------------------------------------===//
// LinearFlowAnalysis
//===----------------------------------------------------------------------===//

// Collects \p FD's values and events (plus \p Summarised, a reference parameter followed
// for its summary), builds the CFG and solves; then hands the solver and the collector to
// \p Done. Done(nullptr, nullptr) when there is nothing to analyse or the analysis gave up.
template <class Finish>
auto LinearFlowAnalysis::run(const FunctionDecl *FD, const ParmVarDecl *Summarised, Finish &&Done)
    -> decltype(Done(nullptr, nullptr)) {
  Stmt *Body = FD ? FD->getBody() : nullptr;
  if (!Body || isa<CoroutineBodyStmt>(Body))
    return Done(nullptr, nullptr);

  ParentMap PM(Body);
  llvm::SmallPtrSet<const Stmt *, 4> CtorInitRoots;
  llvm::SmallVector<Stmt *, 4> CtorInits;
  if (const auto *Ctor = dyn_cast<CXXConstructorDecl>(FD))
    for (const CXXCtorInitializer *Init : Ctor->inits())
      if (Init->isWritten() && Init->getInit()) {
        PM.addStmt(Init->getInit());
        CtorInitRoots.insert(Init->getInit());
        CtorInits.push_back(Init->getInit());
      }

  EventCollector Collector(Model, ReportEscapes, PM, CtorInitRoots, Summaries);
  for (const ParmVarDecl *P : FD->parameters())
    Collector.addParameter(P);
  if (Summarised)
    Collector.addSummarisedParameter(Summarised);
  if (const auto *MD = dyn_cast<CXXMethodDecl>(FD); MD && MD->getOverloadedOperator() == OO_Call)
    Collector.addInitCaptures(MD);
  Collector.collectValues(Body);
  const bool HasLinearValues = !Collector.Values.empty();
  Collector.collectEvents(Body);
  for (Stmt *Init : CtorInits)
    Collector.collectEvents(Init);
  // Nothing linear here: nothing to analyse (the common case, kept cheap).
  if (!HasLinearValues && Collector.Events.empty())
    return Done(nullptr, nullptr);
  if (Collector.Values.size() > Limits.MaxTrackedValues)
    return Done(nullptr, nullptr);

  CFG::BuildOptions Options;
  Options.AddImplicitDtors = true;
  Options.AddTemporaryDtors = true;
  Options.AddLifetime = true;
  Options.AddInitializers = true;
  Options.AddCXXDefaultInitExprInCtors = true;
  Options.setAllAlwaysAdd();
  std::unique_ptr<CFG> G = CFG::buildCFG(FD, Body, &Context, Options);
  if (!G || G->getNumBlockIDs() > Limits.MaxBlocks)
    return Done(nullptr, nullptr);

  // Anchor each event on the CFG element it happens at (or the nearest enclosing one).
  const llvm::DenseSet<const Stmt *> InCFG = cfgStatements(*G);
  llvm::DenseMap<const Stmt *, llvm::SmallVector<const Event *, 2>> EventsAt;
  for (int Pass = 0; Pass < 2; ++Pass) {
    // Assignments last: the right-hand side is evaluated (and moved from) first.
    for (const auto &[Anchor, E] : Collector.Events) {
      if ((E.Kind == EventKind::Assign) != (Pass == 1))
        continue;
      if (const Stmt *At = cfgAnchor(Anchor, InCFG, PM))
        EventsAt[At].push_back(&E);
    }
  }

  SourceLocation BodyEnd = Body->getEndLoc();
  if (const auto *CS = dyn_cast<CompoundStmt>(Body))
    BodyEnd = CS->getRBracLoc();
  Solver S(*G, Context.getSourceManager(), Collector.Values, EventsAt, ReportEscapes, BodyEnd);
  if (!S.solve(Limits.MaxVisitsPerBlock))
    return Done(nullptr, nullptr);
  return Done(&S, &Collector);
}

std::vector<Finding> LinearFlowAnalysis::analyze(const FunctionDecl *FD) {
  return run(FD, nullptr, [&](Solver *S, EventCollector *) -> std::vector<Finding> {
    if (!S)
      return {};
    return finalize(S->report(), Context.getSourceManager());
  });
}

std::optional<ParamSummary> LinearFlowAnalysis::summarize(const FunctionDecl *FD,
                                                          unsigned ParamIdx) {
  if (!FD || ParamIdx >= FD->getNumParams())
    return std::nullopt;
  const ParmVarDecl *P = FD->getParamDecl(ParamIdx);
  if (!Model.isLinear(P->getType().getNonReferenceType()))
    return std::nullopt;
  // A stage given by value or by rvalue reference is the callee's to release (checked where
  // it is defined): its summary says only whether that release arrives.
  const bool Given = !P->getType()->isLValueReferenceType();
  return run(FD, P, [&](Solver *S, EventCollector *C) -> std::optional<ParamSummary> {
    if (!S)
      return std::nullopt; // too large, or no fixpoint: the callee stays opaque
    ParamSummary Summary;
    auto It = C->Index.find(P);
    if (It == C->Index.end())
      return std::nullopt;
    const unsigned V = It->second;
    const FlowState Exit = S->exitState();
    if (!Exit.Reachable)
      return std::nullopt; // never returns: nothing to apply at the call
    const ValueState &VS = Exit.Values[V];
    Summary.Signals = VS.EverSignalled;
    Summary.Arrives = VS.EverArrived;
    if (Given) {
      Summary.Result = ParamSummary::Consumed;
      return Summary;
    }
    const bool Kept = VS.Bits & Live;
    const bool Ended = VS.Bits & (Released | Moved);
    if (VS.Bits & Untracked)
      Summary.Result = ParamSummary::PassedOn;
    else if (Ended)
      Summary.Result = Kept ? ParamSummary::MayConsume : ParamSummary::Consumed;
    for (const RawFinding &R : S->report())
      if (R.Value == static_cast<int>(V) && R.F.Kind == FindingKind::MissingSignal)
        Summary.NeedsSignal = true;
    return Summary;
  });
}

} // namespace linpipe::tidy
