//===--- EventCollector.cpp - linpipe clang-tidy checks -------------------===//
//
// See EventCollector.h.
//
//===----------------------------------------------------------------------===//

#include "EventCollector.h"

namespace linpipe::tidy::flow {

void EventCollector::addValue(const ValueDecl *D, const CXXRecordDecl *RD, bool IsParameter,
                              InitKind Init, int Source) {
  if (Index.count(D))
    return;
  Index[D] = Values.size();
  std::string Name = D->getNameAsString();
  if (Name.empty()) // an unnamed parameter
    if (const auto *P = dyn_cast<ParmVarDecl>(D))
      Name = "<unnamed #" + std::to_string(P->getFunctionScopeIndex() + 1) + ">";
  Values.push_back({D, RD, IsParameter, Init, Source, std::move(Name)});
}

void EventCollector::addInitCaptures(const CXXMethodDecl *CallOperator) {
  // A stage moved into `[s = std::move(stage)]` is the closure's to consume: its body must
  // release or pass it on on every path, like a by-value parameter (a closure that is never
  // called, or called twice, is beyond this analysis).
  const CXXRecordDecl *Closure = CallOperator->getParent();
  if (!Closure->isLambda())
    return;
  for (const LambdaCapture &C : Closure->captures()) {
    if (!C.capturesVariable() || C.getCaptureKind() != LCK_ByCopy)
      continue;
    const auto *VD = dyn_cast<VarDecl>(C.getCapturedVar());
    if (!VD || !VD->isInitCapture())
      continue;
    if (const CXXRecordDecl *RD = Model.linearRecord(VD->getType())) {
      addValue(VD, RD, /*IsParameter=*/true, InitKind::Unknown, -1);
      Values.back().Received = ReceivedAs::InitCapture;
    }
  }
}

void EventCollector::addParameter(const ParmVarDecl *P) {
  if (const CXXRecordDecl *RD = Model.linearRecord(P->getType())) {
    addValue(P, RD, /*IsParameter=*/true, InitKind::Unknown, -1);
    return;
  }
  // A non-const `Linear &&` parameter: the caller's `f(std::move(s))` is a hand-off (the
  // caller stops tracking `s`), so the receiver owns the obligation on every path, as a
  // by-value parameter does. Not for the linear class's own members (its move operations
  // implement the transfer) nor for any class's move constructor or assignment.
  QualType T = P->getType();
  if (!T->isRValueReferenceType() || T.getNonReferenceType().isConstQualified())
    return;
  const CXXRecordDecl *RD = Model.linearRecord(T.getNonReferenceType());
  if (!RD)
    return;
  if (const auto *MD = dyn_cast<CXXMethodDecl>(P->getDeclContext())) {
    if (Model.isLinearClass(MD->getParent()))
      return;
    if (const auto *Ctor = dyn_cast<CXXConstructorDecl>(MD); Ctor && Ctor->isMoveConstructor())
      return;
    if (MD->isMoveAssignmentOperator())
      return;
  }
  addValue(P, RD, /*IsParameter=*/true, InitKind::Unknown, -1);
  Values.back().Received = ReceivedAs::ByRvalueReference;
}

void EventCollector::addSummarisedParameter(const ParmVarDecl *P) {
  const CXXRecordDecl *RD = Model.linearRecord(P->getType().getNonReferenceType());
  if (!RD || Index.count(P))
    return;
  addValue(P, RD, /*IsParameter=*/true, InitKind::Unknown, -1);
  Values.back().Summarised = true;
}

bool EventCollector::TraverseDecl(Decl *D) {
  // Variables (and their initialisers) belong to this function; local classes,
  // functions and the like are analysed on their own.
  if (D && isa<VarDecl, BindingDecl>(D))
    return Base::TraverseDecl(D);
  return true;
}

bool EventCollector::TraverseLambdaExpr(LambdaExpr *L) {
  // The captures are evaluated here; the body is the closure's own function.
  for (Expr *Init : L->capture_inits())
    if (Init && !TraverseStmt(Init))
      return false;
  return true;
}

bool EventCollector::VisitVarDecl(VarDecl *VD) {
  if (!CollectingValues || isa<ParmVarDecl>(VD) || !VD->hasLocalStorage() ||
      VD->isInitCapture())
    return true;
  if (const auto *DD = dyn_cast<DecompositionDecl>(VD)) {
    addBindings(DD);
    return true;
  }
  QualType T = VD->getType();
  const Expr *Init = VD->getInit();
  if (T->isReferenceType()) {
    // `auto &&s = acquire();` extends the temporary's lifetime to the reference's.
    if (const auto *EWC = dyn_cast_or_null<ExprWithCleanups>(Init))
      Init = EWC->getSubExpr();
    const auto *MTE = dyn_cast_or_null<MaterializeTemporaryExpr>(Init ? Init->IgnoreParens()
                                                                     : nullptr);
    if (!MTE || MTE->getExtendingDecl() != VD)
      return true;
    if (const CXXRecordDecl *RD = Model.linearRecord(MTE->getType())) {
      auto [Kind, Source] = Classifier.initOf(MTE->getSubExpr());
      addValue(VD, RD, false, Kind, Source);
    }
    return true;
  }
  if (const CXXRecordDecl *RD = Model.linearRecord(T)) {
    auto [Kind, Source] = Classifier.initOf(Init);
    addValue(VD, RD, false, Kind, Source);
    return true;
  }
  // `auto scope = pipe.consume_explicit();`: a scope that must be signalled before it ends.
  if (const auto *Call = dyn_cast_or_null<CallExpr>(skipParensAndCasts(Init));
      Call && Model.makesSignalScope(Call->getDirectCallee()))
    if (const CXXRecordDecl *RD = T->getAsCXXRecordDecl()) {
      addValue(VD, RD->getCanonicalDecl(), false, InitKind::Fresh, -1);
      Values.back().IsSignalScope = true;
    }
  return true;
}

// `auto [a, b] = make_two();`: each binding of a linear type holds its own obligation,
// acquired with the declaration and ended with the decomposed object. Not for bindings into
// an object the function does not own (`auto &[a, b] = held;`) or one it copies from a name.
void EventCollector::addBindings(const DecompositionDecl *DD) {
  if (DD->getType()->isReferenceType())
    return;
  const auto [Kind, Source] = Classifier.initOf(DD->getInit());
  if (Kind != InitKind::Fresh)
    return;
  for (const BindingDecl *B : DD->bindings()) {
    // A binding of reference type (a std::pair<Stage &, int>) names someone else's stage.
    if (B->getType().isNull() || B->getType()->isReferenceType())
      continue;
    const CXXRecordDecl *RD = Model.linearRecord(B->getType());
    if (!RD)
      continue;
    addValue(B, RD, /*IsParameter=*/false, InitKind::Fresh, -1);
    Values.back().Owner = DD;
  }
}

bool EventCollector::VisitDeclRefExpr(DeclRefExpr *DRE) {
  if (CollectingValues || !inThisFunction(DRE))
    return true;
  auto It = Index.find(DRE->getDecl());
  if (It == Index.end())
    return true;
  const unsigned V = It->second;
  Flow F = Classifier.classify(DRE, /*Prvalue=*/false);
  Event E;
  E.Value = V;
  E.Loc = DRE->getLocation();
  switch (F.K) {
  case Flow::Use:
  case Flow::Discard:
    E.Kind = EventKind::Use;
    Events.push_back({DRE, E});
    return true;
  case Flow::MethodCall:
    E.Kind = EventKind::MethodCall;
    E.Callee = F.Callee;
    E.Role = F.Role;
    break;
  case Flow::Moved:
    E.Kind = EventKind::Move;
    E.ArrivesAfter = F.ArrivesAfter;
    E.Callee = F.Callee;
    if (F.DroppedObject)
      addDroppedObject(F.DroppedObject, F.UsedBeforeDiscard);
    break;
  case Flow::Escape:
    E.Kind = EventKind::Escape;
    E.Escape = F.EscapeTo;
    E.Loc = F.Loc;
    E.BySwap = F.BySwap;
    break;
  case Flow::HandOff:
    E.Kind = EventKind::HandOff;
    break;
  case Flow::SwapWith:
    E.Kind = EventKind::Swap;
    E.SwapWith = static_cast<unsigned>(F.SwapOther);
    E.Loc = F.Loc;
    break;
  case Flow::Covered:
    return true;
  case Flow::AssignTarget:
    E.Kind = EventKind::Assign;
    E.Loc = F.Loc;
    E.AssignInit = F.AssignInit;
    E.AssignSource = F.AssignSource;
    break;
  case Flow::ExchangeTarget: {
    E.Kind = EventKind::Move; // the old value leaves as the call's result...
    Events.push_back({F.Anchor, E});
    Event In = E;             // ...then the new one is assigned in (assignments apply last)
    In.Kind = EventKind::Assign;
    In.Loc = F.Loc;
    In.AssignInit = F.AssignInit;
    In.AssignSource = F.AssignSource;
    Events.push_back({F.Anchor, In});
    return true;
  }
  }
  Events.push_back({F.Anchor, E});
  return true;
}

bool EventCollector::VisitCallExpr(CallExpr *CE) {
  if (CollectingValues || !CE->isPRValue() || !inThisFunction(CE))
    return true;
  if (const CXXRecordDecl *RD = Model.linearRecord(CE->getType()))
    addTemporary(CE, RD, calleeName(CE), /*ByCtor=*/false);
  return true;
}

bool EventCollector::VisitCXXConstructExpr(CXXConstructExpr *CCE) {
  if (CollectingValues || !inThisFunction(CCE))
    return true;
  const CXXRecordDecl *RD = Model.linearRecord(CCE->getType());
  const CXXConstructorDecl *Ctor = CCE->getConstructor();
  if (!RD || !Ctor || (Ctor->isDefaultConstructor() && !Model.acquires(Ctor)))
    return true;
  bool MovedFromElsewhere = false;
  if (Ctor->isCopyOrMoveConstructor() && CCE->getNumArgs() >= 1) {
    // Moving or copying a tracked value: that value's own flow covers the new object.
    if (const ValueDecl *Src = sourceDecl(CCE->getArg(0)); Src && Index.count(Src))
      return true;
    // Moved out of a hand-off: the obligation was handed over on purpose.
    if (const auto *Call = dyn_cast<CallExpr>(skipParensAndCasts(CCE->getArg(0)));
        Call && Model.isHandOff(Call->getDirectCallee()))
      return true;
    MovedFromElsewhere = true;
  }
  addTemporary(CCE, RD, RD->getNameAsString(), /*ByCtor=*/true, MovedFromElsewhere);
  return true;
}

// A temporary linear value: its whole life is one full-expression, so its fault,
// if any, is known here; it is reported if the analysis reaches it.
// A value moved out of untracked storage (a member, *ptr) and stored elsewhere again is
// not this function's obligation; dropping it is.
void EventCollector::addTemporary(const Expr *E, const CXXRecordDecl *RD, std::string Name,
                                  bool ByCtor, bool MovedFromElsewhere) {
  Flow F = Classifier.classify(E, /*Prvalue=*/true);
  Finding R;
  R.Name = std::move(Name);
  R.IsTemporary = true;
  R.MadeByConstructor = ByCtor;
  R.Record = RD;
  R.Loc = E->getExprLoc();
  switch (F.K) {
  case Flow::Moved:
  case Flow::HandOff:
    return;
  case Flow::Escape:
    if (!ReportEscapes || MovedFromElsewhere)
      return;
    R.Kind = FindingKind::Escape;
    R.Escape = F.EscapeTo;
    R.Loc = F.Loc;
    break;
  case Flow::MethodCall:
    if (F.Role.Consume) {
      if (!F.Role.NeedsSignal)
        return;
      R.Kind = FindingKind::MissingSignal;
      R.CallName = F.Callee->getNameAsString();
      R.Loc = F.Loc;
      break;
    }
    R.Kind = FindingKind::Discarded;
    R.UsedBeforeDiscard = true;
    break;
  case Flow::Use:
  case Flow::AssignTarget:
  case Flow::ExchangeTarget: // not for a temporary (an lvalue only): listed for completeness
  case Flow::SwapWith:
  case Flow::Covered:
  case Flow::Discard:
    R.Kind = FindingKind::Discarded;
    R.UsedBeforeDiscard = F.K != Flow::Discard || F.UsedBeforeDiscard;
    break;
  }
  Event Ev;
  Ev.Kind = EventKind::Report;
  Ev.Report = std::move(R);
  Events.push_back({E, std::move(Ev)});
}

void EventCollector::addDroppedObject(const CXXConstructExpr *CCE, bool UsedBefore) {
  Event Ev;
  Ev.Kind = EventKind::Report;
  Ev.Report.Kind = FindingKind::Discarded;
  Ev.Report.Name = CCE->getType()->getAsCXXRecordDecl()->getNameAsString();
  Ev.Report.IsTemporary = true;
  Ev.Report.MadeByConstructor = true;
  Ev.Report.UsedBeforeDiscard = UsedBefore;
  Ev.Report.Record = Model.linearRecord(CCE->getType());
  Ev.Report.Loc = CCE->getExprLoc();
  Events.push_back({CCE, std::move(Ev)});
}

} // namespace linpipe::tidy::flow
