//===--- FlowClassifier.cpp - linpipe clang-tidy checks -------------------===//
//
// See FlowClassifier.h.
//
//===----------------------------------------------------------------------===//

#include "FlowClassifier.h"
#include <tuple>

namespace linpipe::tidy::flow {

// Nodes that pass a value on unchanged: parentheses, no-op casts, temporaries'
// bookkeeping, the arms of ?: and the right side of a comma.
bool FlowClassifier::isTransparent(const Stmt *P, const Expr *Cur) {
  if (isa<ParenExpr, ExprWithCleanups, ConstantExpr, CXXBindTemporaryExpr,
          MaterializeTemporaryExpr>(P))
    return true;
  if (const auto *Cast = dyn_cast<CastExpr>(P)) {
    if (Cast->getType()->isVoidType())
      return false;
    switch (Cast->getCastKind()) {
    case CK_NoOp:
    case CK_DerivedToBase:
    case CK_UncheckedDerivedToBase:
    case CK_ConstructorConversion:
      return true;
    case CK_UserDefinedConversion: {
      // `ConsumerStage s = token;`: the conversion function's result is the value that
      // flows on (a conversion *from* a stage is a member call on it, handled there).
      const CXXRecordDecl *To = Cast->getType()->getAsCXXRecordDecl();
      const CXXRecordDecl *From = Cur->getType()->getAsCXXRecordDecl();
      return To && From && To->getCanonicalDecl() == From->getCanonicalDecl();
    }
    default:
      return false;
    }
  }
  if (const auto *CO = dyn_cast<AbstractConditionalOperator>(P))
    return CO->getCond() != Cur;
  if (const auto *BO = dyn_cast<BinaryOperator>(P))
    return BO->getOpcode() == BO_Comma && BO->getRHS() == Cur;
  return false;
}

Flow FlowClassifier::drop(const Expr *At, bool Prvalue, bool UsedBefore) const {
  Flow F;
  F.K = Prvalue ? Flow::Discard : Flow::Use;
  F.Anchor = At;
  F.UsedBeforeDiscard = UsedBefore;
  return F;
}

Flow FlowClassifier::escape(const Stmt *Anchor, EscapeKind Kind, SourceLocation Loc) const {
  Flow F;
  F.K = Flow::Escape;
  F.Anchor = Anchor;
  F.EscapeTo = Kind;
  F.Loc = Loc;
  return F;
}

Flow FlowClassifier::methodCall(const CallExpr *Call, const CXXMethodDecl *MD,
                                SourceLocation Loc) const {
  Flow F;
  F.K = Flow::MethodCall;
  F.Anchor = Call;
  F.Callee = MD;
  F.Role = Model.roleOf(MD);
  F.Loc = Loc;
  return F;
}

Flow FlowClassifier::classify(const Expr *Start, bool Prvalue, unsigned Depth) {
  const Expr *Arm = nullptr;
  Flow F = follow(Start, Prvalue, Depth, Arm);
  // Through an arm of `c ? x : y`, what happens to the value happens only on the paths that
  // take that arm: anchored on the arm (a CFG element of its own branch), not after the join.
  if (Arm && F.K != Flow::AssignTarget && F.K != Flow::ExchangeTarget)
    F.Anchor = Arm;
  return F;
}

Flow FlowClassifier::follow(const Expr *Start, bool Prvalue, unsigned Depth, const Expr *&Arm) {
  const Expr *Cur = Start;
  for (unsigned Steps = 0; Steps < 64 && Depth < 8; ++Steps) {
    const Stmt *P = PM.getParent(Cur);
    if (const auto *CO = dyn_cast_or_null<AbstractConditionalOperator>(P);
        !Arm && CO && CO->getCond() != Cur)
      Arm = Cur;
    if (!P) {
      // A constructor's member or base initialiser: the value is stored in *this.
      if (CtorInitRoots.count(Cur) && (Prvalue || !Cur->isLValue()))
        return escape(Cur, EscapeKind::Member, Cur->getExprLoc());
      return drop(Cur, Prvalue, true);
    }
    if (isTransparent(P, Cur)) {
      Cur = cast<Expr>(P);
      continue;
    }
    if (const auto *Cast = dyn_cast<CastExpr>(P))
      return drop(Cur, Prvalue, !Cast->getType()->isVoidType());
    if (const auto *CE = dyn_cast<CallExpr>(P)) {
      if (CE->getNumArgs() >= 1 && CE->getArg(0) == Cur && isMoveLike(CE->getDirectCallee())) {
        Cur = CE;
        continue;
      }
      return fromCall(CE, Cur, Prvalue);
    }
    if (const auto *CCE = dyn_cast<CXXConstructExpr>(P))
      return fromConstruct(CCE, Cur, Prvalue, Depth);
    if (const auto *ME = dyn_cast<MemberExpr>(P))
      return fromMember(ME, Cur, Prvalue);
    if (const auto *UO = dyn_cast<UnaryOperator>(P)) {
      if (UO->getOpcode() == UO_AddrOf)
        return escape(UO, EscapeKind::AddressTaken, UO->getOperatorLoc());
      return drop(Cur, Prvalue, true);
    }
    if (const auto *New = dyn_cast<CXXNewExpr>(P))
      return escape(New, EscapeKind::Heap, New->getBeginLoc());
    if (isa<InitListExpr, CXXParenListInitExpr>(P)) {
      const auto *List = cast<Expr>(P);
      if (std::optional<Flow> Carried = carriedByAggregate(List, Depth))
        return *Carried;
      return escape(List,
                    List->getType()->isArrayType() ? EscapeKind::ArrayElement : EscapeKind::Member,
                    List->getBeginLoc());
    }
    if (isa<ReturnStmt, CXXThrowExpr, CoreturnStmt>(P)) {
      if (Cur->isLValue() && !Prvalue)
        return drop(Cur, Prvalue, true); // a reference returned: the caller borrows it
      Flow F;
      F.K = Flow::Moved;
      F.Anchor = Cur;
      return F;
    }
    if (const auto *DS = dyn_cast<DeclStmt>(P))
      return fromDeclStmt(DS, Cur, Prvalue);
    if (const auto *L = dyn_cast<LambdaExpr>(P))
      return fromLambda(L, Cur, Prvalue);
    // A statement: the value of an expression statement is discarded.
    if (!isa<Expr>(P))
      return drop(Cur, Prvalue, false);
    if (const auto *BO = dyn_cast<BinaryOperator>(P); BO && BO->getOpcode() == BO_Comma)
      return drop(Cur, Prvalue, false);
    return drop(Cur, Prvalue, true);
  }
  return drop(Cur, Prvalue, true);
}

Flow FlowClassifier::fromCall(const CallExpr *CE, const Expr *Cur, bool Prvalue) {
  const FunctionDecl *FD = CE->getDirectCallee();
  if (isAddressOf(FD))
    return escape(CE, EscapeKind::AddressTaken, CE->getExprLoc());
  if (Model.isHandOff(FD)) {
    Flow F;
    F.K = Flow::HandOff;
    F.Anchor = CE;
    return F;
  }
  std::optional<unsigned> ArgIdx = argIndex(CE, Cur);
  if (!ArgIdx)
    return drop(Cur, Prvalue, true);
  const auto *Op = dyn_cast<CXXOperatorCallExpr>(CE);
  const auto *MD = dyn_cast_or_null<CXXMethodDecl>(FD);
  // A member operator called on the value itself.
  if (Op && *ArgIdx == 0 && MD && MD->isImplicitObjectMemberFunction()) {
    if (Op->getOperator() == OO_Equal && !Prvalue) {
      Flow F;
      F.K = Flow::AssignTarget;
      F.Anchor = Op;
      F.Loc = Op->getOperatorLoc();
      std::tie(F.AssignInit, F.AssignSource) = initOf(Op->getArg(1));
      return F;
    }
    return methodCall(Op, MD, Op->getOperatorLoc());
  }
  if (isExchange(FD) && CE->getNumArgs() == 2) {
    if (*ArgIdx == 1) // the new value goes into the first argument, as in an assignment
      return assignedInto(CE->getArg(0), CE, Cur, CE->getExprLoc());
    if (!Prvalue) {
      Flow F;
      F.K = Flow::ExchangeTarget;
      F.Anchor = CE;
      F.Loc = CE->getExprLoc();
      std::tie(F.AssignInit, F.AssignSource) = initOf(CE->getArg(1));
      return F;
    }
  }
  if (auto Operands = swapOperands(CE); Operands && !Prvalue)
    if (Cur == Operands->first || Cur == Operands->second)
      return swapped(CE, *Operands, Cur == Operands->second);
  if (isInvokeLike(FD))
    return invoked(CE, *ArgIdx, Cur, Prvalue);
  QualType PT = paramTypeAt(CE, FD, *ArgIdx);
  if (!Prvalue && !PT.isNull() && PT->isLValueReferenceType())
    if (std::optional<unsigned> ParamIdx = paramIndexAt(CE, FD, *ArgIdx))
      if (std::optional<Flow> Lent = lentTo(CE, FD, *ParamIdx, Cur))
        return *Lent;
  if (PT.isNull() || !(PT->isRValueReferenceType() || PT->isRecordType()))
    return drop(Cur, Prvalue, true); // borrowed (lvalue reference), or unknown
  // The callee takes the obligation. An assignment into a linear object moves it
  // there; a standard library callee stores it where the analysis cannot look.
  if (MD && (MD->isMoveAssignmentOperator() || MD->isCopyAssignmentOperator()) &&
      Model.isLinearClass(MD->getParent())) {
    const Expr *Target = Op ? Op->getArg(0)
                            : cast<CXXMemberCallExpr>(CE)->getImplicitObjectArgument();
    return assignedInto(Target, CE, Cur, Op ? Op->getOperatorLoc() : CE->getExprLoc());
  }
  if (FD && isInStd(FD)) {
    if (isStdAggregate(FD))
      if (std::optional<Flow> Carried = carriedByAggregate(CE, 0))
        return *Carried;
    return escape(CE, isHeapSink(FD) ? EscapeKind::Heap : EscapeKind::Container,
                  CE->getExprLoc());
  }
  Flow F;
  F.K = Flow::Moved;
  F.Anchor = CE;
  F.Loc = CE->getExprLoc();
  F.Callee = FD;
  F.ArrivesAfter = Model.arrivesOnArgument(FD);
  // A callee whose body releases what it is given with an arrival (release(), a push into an
  // arriving lag) arrives again after an arrival made here.
  if (!F.ArrivesAfter && Summaries && FD)
    if (std::optional<unsigned> ParamIdx = paramIndexAt(CE, FD, *ArgIdx))
      if (std::optional<ParamSummary> S = Summaries->lookup(FD, *ParamIdx))
        F.ArrivesAfter = S->Arrives;
  return F;
}

// A stage placed in an aggregate (a struct's braces, std::pair, std::tuple) that is returned,
// passed on by value or unpacked into structured bindings travels with it: moved there, and
// the caller or the bindings hold it. Kept anywhere else, it escapes as before.
std::optional<Flow> FlowClassifier::carriedByAggregate(const Expr *Aggregate, unsigned Depth) {
  if (Aggregate->getType()->isArrayType() || Depth >= 8)
    return std::nullopt;
  Flow Next = classify(Aggregate, /*Prvalue=*/true, Depth + 1);
  if (Next.K != Flow::Moved)
    return std::nullopt;
  Flow F;
  F.K = Flow::Moved;
  F.Anchor = Aggregate;
  return F;
}

// What a callee the summaries can see into does to a stage lent to it by reference: applied
// at the call as if it happened there (a release, a signal, an arrival), or the stage is
// followed no further (the callee stored it somewhere).
std::optional<Flow> FlowClassifier::lentTo(const CallExpr *CE, const FunctionDecl *FD,
                                           unsigned ParamIdx, const Expr *Cur) const {
  if (!Summaries || !FD)
    return std::nullopt;
  std::optional<ParamSummary> S = Summaries->lookup(FD, ParamIdx);
  if (!S)
    return std::nullopt;
  Flow F;
  F.Anchor = CE;
  F.Loc = Cur->getExprLoc();
  F.Callee = FD;
  switch (S->Result) {
  case ParamSummary::PassedOn:
    F.K = Flow::HandOff;
    return F;
  case ParamSummary::Borrowed:
    if (!S->Signals && !S->Arrives)
      return drop(Cur, /*Prvalue=*/false, true);
    break;
  case ParamSummary::Consumed:
    F.Role.Consume = true;
    F.Role.NeedsSignal = S->NeedsSignal;
    break;
  case ParamSummary::MayConsume:
    F.Role.MayConsume = true;
    break;
  }
  F.K = Flow::MethodCall;
  F.Role.Signals = S->Signals;
  // Where the helper may have ended the stage, its arrival came with that release: a later
  // release is reported as the double release it is, not also as a double arrival.
  F.Role.Arrives = S->Arrives && !F.Role.MayConsume;
  return F;
}

// std::invoke(f, args...): the arguments go to f as in a direct call. A stage given by value
// or rvalue reference is the callee's to consume; one lent by reference to a function or
// lambda whose body the summaries can see gets its summary; else it is borrowed.
Flow FlowClassifier::invoked(const CallExpr *CE, unsigned ArgIdx, const Expr *Cur,
                             bool Prvalue) const {
  if (ArgIdx == 0)
    return drop(Cur, Prvalue, true); // the callable itself
  const FunctionDecl *Target = nullptr;
  const Expr *Callable = skipParensAndCasts(CE->getArg(0));
  if (const auto *DRE = dyn_cast<DeclRefExpr>(Callable))
    Target = dyn_cast<FunctionDecl>(DRE->getDecl());
  if (const CXXRecordDecl *RD = Callable->getType()->getAsCXXRecordDecl();
      !Target && RD && RD->isLambda())
    Target = RD->getLambdaCallOperator();
  const unsigned ParamIdx = ArgIdx - 1;
  if (Target && !Target->isTemplated() && ParamIdx < Target->getNumParams()) {
    QualType PT = Target->getParamDecl(ParamIdx)->getType();
    if (PT->isLValueReferenceType()) {
      if (Prvalue)
        return drop(Cur, Prvalue, true);
      if (std::optional<Flow> Lent = lentTo(CE, Target, ParamIdx, Cur))
        return *Lent;
      return drop(Cur, Prvalue, true);
    }
  }
  // Forwarded as an rvalue (a temporary, or std::move(s)): the callee takes it (and, as in a
  // direct call, an arrival before it counts against a callee whose release arrives).
  if (Prvalue || !Cur->isLValue()) {
    Flow F;
    F.K = Flow::Moved;
    F.Anchor = CE;
    F.Loc = CE->getExprLoc();
    F.Callee = Target;
    if (Target && !Target->isTemplated() && ParamIdx < Target->getNumParams()) {
      F.ArrivesAfter = Model.arrivesOnArgument(Target);
      if (!F.ArrivesAfter && Summaries)
        if (std::optional<ParamSummary> S = Summaries->lookup(Target, ParamIdx))
          F.ArrivesAfter = S->Arrives;
    }
    return F;
  }
  return drop(Cur, Prvalue, true);
}

// std::swap(a, b) between two tracked names: their states trade places (the obligation
// follows the stage). With untracked storage (a member, an element, *p), the name's
// stage goes where that storage lives, as `member = std::move(s)` does, and what the
// name receives is not followed.
Flow FlowClassifier::swapped(const CallExpr *CE, std::pair<const Expr *, const Expr *> Operands,
                             bool IsSecond) const {
  const Expr *This = IsSecond ? Operands.second : Operands.first;
  const Expr *Other = IsSecond ? Operands.first : Operands.second;
  const ValueDecl *OtherDecl = sourceDecl(Other);
  const ValueDecl *ThisDecl = sourceDecl(This);
  Flow F;
  F.Anchor = CE;
  // Where the call is written: for std::ranges::swap, the object's name (the operator call
  // itself begins at its parenthesis).
  const auto *Op = dyn_cast<CXXOperatorCallExpr>(CE);
  F.Loc = Op ? Op->getArg(0)->getBeginLoc() : CE->getBeginLoc();
  // A trade is followed only between two names; an operand that picks a stage some other
  // way (`c ? a : b`, `*p`) sends this name's stage where the analysis does not follow it.
  const auto isName = [](const Expr *E) { return isa<DeclRefExpr>(skipParensAndCasts(E)); };
  if (!isName(This)) {
    Flow Out = escape(CE, EscapeKind::Untracked, F.Loc);
    Out.BySwap = true;
    return Out;
  }
  if (OtherDecl && OtherDecl == ThisDecl) {
    F.K = Flow::Covered; // swapping a value with itself changes nothing
    return F;
  }
  const int OtherIdx = OtherDecl && isName(Other) ? trackedIndex(OtherDecl) : -1;
  if (OtherIdx < 0) {
    Flow Out = assignedInto(Other, CE, This, F.Loc);
    Out.BySwap = Out.K == Flow::Escape;
    return Out;
  }
  if (IsSecond) {
    F.K = Flow::Covered; // the first operand's event trades both
    return F;
  }
  F.K = Flow::SwapWith;
  F.SwapOther = OtherIdx;
  return F;
}

Flow FlowClassifier::assignedInto(const Expr *LHS, const CallExpr *Call, const Expr *Source,
                                  SourceLocation Loc) const {
  const Expr *L = skipParensAndCasts(LHS);
  if (const auto *DRE = dyn_cast<DeclRefExpr>(L)) {
    // `s = std::move(s)`: nothing moves out; the assignment over the live value is the fault.
    if (Source && sourceDecl(Source) == DRE->getDecl())
      return drop(Source, /*Prvalue=*/false, true);
    if (trackedIndex(DRE->getDecl()) >= 0) {
      Flow F;
      F.K = Flow::Moved;
      F.Anchor = Call;
      return F;
    }
    return escape(Call, EscapeKind::Untracked, Loc);
  }
  if (isa<MemberExpr>(L))
    return escape(Call, EscapeKind::Member, Loc);
  if (isa<ArraySubscriptExpr>(L))
    return escape(Call, EscapeKind::ArrayElement, Loc);
  if (const auto *UO = dyn_cast<UnaryOperator>(L); UO && UO->getOpcode() == UO_Deref)
    return escape(Call, EscapeKind::Heap, Loc);
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(L)) {
    if (Op->getOperator() == OO_Subscript)
      return escape(Call,
                    isInStd(Op->getDirectCallee()) ? EscapeKind::Container
                                                   : EscapeKind::ArrayElement,
                    Loc);
    if (Op->getOperator() == OO_Star || Op->getOperator() == OO_Arrow)
      return escape(Call, EscapeKind::Heap, Loc);
  }
  if (const auto *CE = dyn_cast<CallExpr>(L); CE && isInStd(CE->getDirectCallee()))
    return escape(Call, EscapeKind::Container, Loc);
  return escape(Call, EscapeKind::Untracked, Loc);
}

Flow FlowClassifier::fromConstruct(const CXXConstructExpr *CCE, const Expr *Cur, bool Prvalue,
                                   unsigned Depth) {
  const CXXConstructorDecl *Ctor = CCE->getConstructor();
  std::optional<unsigned> ArgIdx = argIndex(CCE, Cur);
  if (!Ctor || !ArgIdx || *ArgIdx >= Ctor->getNumParams())
    return drop(Cur, Prvalue, true);
  QualType PT = Ctor->getParamDecl(*ArgIdx)->getType();
  if (Ctor->isCopyConstructor() || PT->isLValueReferenceType())
    return drop(Cur, Prvalue, true); // copied or borrowed
  if (Ctor->isMoveConstructor() && Model.isLinear(CCE->getType()))
    return movedIntoNewObject(CCE, Depth);
  // Another class's constructor takes it by value or rvalue reference.
  if (isInStd(Ctor)) {
    if (isStdAggregate(Ctor))
      if (std::optional<Flow> Carried = carriedByAggregate(CCE, Depth))
        return *Carried;
    return escape(CCE, isHeapSink(Ctor) ? EscapeKind::Heap : EscapeKind::Container,
                  CCE->getExprLoc());
  }
  Flow F;
  F.K = Flow::Moved;
  F.Anchor = CCE;
  return F;
}

// A move construction: the value now lives in the new object, so it goes where
// the new object goes.
Flow FlowClassifier::movedIntoNewObject(const CXXConstructExpr *CCE, unsigned Depth) {
  Flow Next = classify(CCE, /*Prvalue=*/true, Depth + 1);
  switch (Next.K) {
  case Flow::Escape:
  case Flow::HandOff:
    return Next;
  case Flow::Moved:
    // A by-value argument is moved when its parameter is constructed, before the later
    // arguments are evaluated (clang evaluates them in order): `f(std::move(s), s.index())`
    // reads a moved-from stage, so the move is placed at the construction, not the call.
    if (isa_and_nonnull<CallExpr>(Next.Anchor))
      Next.Anchor = CCE;
    return Next;
  case Flow::MethodCall:
    if (Next.Role.Consume) {
      Flow F;
      F.K = Flow::Moved;
      F.Anchor = CCE;
      return F;
    }
    [[fallthrough]];
  default: {
    Flow F;
    F.K = Flow::Moved;
    F.Anchor = CCE;
    F.DroppedObject = CCE;
    F.UsedBeforeDiscard = Next.K != Flow::Discard || Next.UsedBeforeDiscard;
    return F;
  }
  }
}

Flow FlowClassifier::fromMember(const MemberExpr *ME, const Expr *Cur, bool Prvalue) const {
  if (ME->getBase() != Cur)
    return drop(Cur, Prvalue, true);
  const Stmt *GP = PM.getParent(ME);
  const Stmt *Callee = ME;
  while (GP && isa<ParenExpr>(GP)) {
    Callee = GP;
    GP = PM.getParent(GP);
  }
  const auto *Call = dyn_cast_or_null<CallExpr>(GP);
  const auto *MD = dyn_cast<CXXMethodDecl>(ME->getMemberDecl());
  if (Call && MD && Call->getCallee() == Callee)
    return methodCall(Call, MD, ME->getMemberLoc());
  return drop(Cur, Prvalue, true); // a data member read
}

Flow FlowClassifier::fromDeclStmt(const DeclStmt *DS, const Expr *Cur, bool Prvalue) const {
  for (const Decl *D : DS->decls()) {
    const auto *VD = dyn_cast<VarDecl>(D);
    if (!VD || VD->getInit() != Cur)
      continue;
    if (trackedIndex(VD) >= 0) {
      Flow F;
      F.K = Flow::Moved;
      F.Anchor = Cur;
      return F;
    }
    if (!VD->hasLocalStorage())
      return escape(Cur, EscapeKind::Untracked, VD->getLocation());
    if (isa<DecompositionDecl>(VD) && !VD->getType()->isReferenceType()) {
      Flow F; // unpacked: the structured bindings hold it (EventCollector::addBindings)
      F.K = Flow::Moved;
      F.Anchor = Cur;
      return F;
    }
    if (VD->getType()->isReferenceType())
      return escape(Cur, EscapeKind::RefBinding, VD->getLocation());
    return drop(Cur, Prvalue, true);
  }
  return drop(Cur, Prvalue, true);
}

Flow FlowClassifier::fromLambda(const LambdaExpr *L, const Expr *Cur, bool Prvalue) const {
  unsigned K = 0;
  for (const Expr *Init : L->capture_inits()) {
    if (Init == Cur)
      break;
    ++K;
  }
  if (K >= L->capture_size())
    return drop(Cur, Prvalue, true);
  const LambdaCapture &C = *(L->capture_begin() + K);
  if (!C.capturesVariable())
    return drop(Cur, Prvalue, true);
  const auto *Captured = dyn_cast<VarDecl>(C.getCapturedVar());
  const bool InitCapture = Captured && Captured->isInitCapture();
  if (C.getCaptureKind() == LCK_ByRef ||
      (InitCapture && Captured->getType()->isReferenceType()))
    return escape(L, EscapeKind::RefCapture, C.getLocation());
  if (InitCapture && (Prvalue || !Cur->isLValue())) {
    // Moved into the closure: the closure owns it (not followed further).
    Flow F;
    F.K = Flow::Moved;
    F.Anchor = L;
    return F;
  }
  return drop(Cur, Prvalue, true);
}

std::pair<InitKind, int> FlowClassifier::initOf(const Expr *Init) const {
  if (!Init)
    return {InitKind::Empty, -1};
  const Expr *E = skipParensAndCasts(Init);
  if (const auto *CCE = dyn_cast<CXXConstructExpr>(E)) {
    const CXXConstructorDecl *Ctor = CCE->getConstructor();
    if (Ctor && Ctor->isDefaultConstructor() && !Model.acquires(Ctor))
      return {InitKind::Empty, -1};
    if (!Ctor || !Ctor->isCopyOrMoveConstructor() || CCE->getNumArgs() < 1)
      return {InitKind::Fresh, -1};
    E = CCE->getArg(0);
  }
  // std::exchange(obj, ...) yields obj's old value.
  if (const auto *CE = dyn_cast<CallExpr>(skipParensAndCasts(E));
      CE && isExchange(CE->getDirectCallee()) && CE->getNumArgs() == 2)
    E = CE->getArg(0);
  if (const ValueDecl *Src = sourceDecl(E)) {
    int Idx = trackedIndex(Src);
    return Idx >= 0 ? std::make_pair(InitKind::FromTracked, Idx)
                    : std::make_pair(InitKind::Unknown, -1);
  }
  E = skipParensAndCasts(E);
  if (isa<CallExpr>(E) && E->isPRValue())
    return {InitKind::Fresh, -1};
  return {InitKind::Unknown, -1};
}

} // namespace linpipe::tidy::flow
