//===--- LinearFlowAnalysis.cpp - linpipe clang-tidy checks ---------------===//
//
// See LinearFlowAnalysis.h for the overview. The file reads top-down:
//   * AST helpers;
//   * FlowClassifier: where does one linear value go (use, consume, move, escape...);
//   * EventCollector: the values a function owns and the events on them;
//   * Solver: the forward dataflow over the CFG, its fixpoint and the replay;
//   * LinearFlowAnalysis::analyze, which ties them together.
//
//===----------------------------------------------------------------------===//

#include "LinearFlowAnalysis.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMap.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Analysis/CFG.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/SmallVector.h"
#include <algorithm>
#include <set>
#include <tuple>

using namespace clang;

namespace linpipe::tidy {
namespace {

//===----------------------------------------------------------------------===//
// AST helpers
//===----------------------------------------------------------------------===//

bool isInStd(const Decl *D) {
  for (const DeclContext *DC = D ? D->getDeclContext() : nullptr; DC; DC = DC->getParent())
    if (DC->isStdNamespace())
      return true;
  return false;
}

bool isStdNamed(const NamedDecl *D, std::initializer_list<llvm::StringRef> Names) {
  return D && D->getDeclName().isIdentifier() && llvm::is_contained(Names, D->getName()) &&
         isInStd(D);
}

// std::move and friends only change the value category: the value flows on.
bool isMoveLike(const FunctionDecl *FD) {
  return isStdNamed(FD, {"move", "forward", "move_if_noexcept", "forward_like"});
}

bool isAddressOf(const FunctionDecl *FD) { return isStdNamed(FD, {"addressof", "__addressof"}); }

// std::exchange(obj, value): a transfer between two names, not an escape: obj's old value
// leaves as the result, value moves into obj.
bool isExchange(const FunctionDecl *FD) { return isStdNamed(FD, {"exchange"}); }

// A std callee that stores what it is given on the heap rather than in a container.
bool isHeapSink(const FunctionDecl *FD) {
  if (isStdNamed(FD, {"make_unique", "make_shared", "allocate_shared", "construct_at"}))
    return true;
  const auto *MD = dyn_cast_or_null<CXXMethodDecl>(FD);
  return MD && isStdNamed(MD->getParent(), {"unique_ptr", "shared_ptr"});
}

const Expr *skipParensAndCasts(const Expr *E) {
  while (E) {
    const Expr *Next = E->IgnoreImplicit()->IgnoreParens();
    if (const auto *Cast = dyn_cast<CastExpr>(Next);
        Cast && (Cast->getCastKind() == CK_NoOp || Cast->getCastKind() == CK_DerivedToBase ||
                 Cast->getCastKind() == CK_UncheckedDerivedToBase))
      Next = Cast->getSubExpr();
    if (Next == E)
      return E;
    E = Next;
  }
  return E;
}

// The declaration a moved or copied expression names, through std::move and casts.
const ValueDecl *sourceDecl(const Expr *E) {
  for (unsigned Guard = 0; E && Guard < 16; ++Guard) {
    E = skipParensAndCasts(E);
    if (const auto *DRE = dyn_cast<DeclRefExpr>(E))
      return DRE->getDecl();
    const auto *CE = dyn_cast<CallExpr>(E);
    if (!CE || CE->getNumArgs() < 1 || !isMoveLike(CE->getDirectCallee()))
      return nullptr;
    E = CE->getArg(0);
  }
  return nullptr;
}

QualType paramTypeAt(const CallExpr *CE, const FunctionDecl *FD, unsigned ArgIdx) {
  unsigned ParamIdx = ArgIdx;
  if (const auto *MD = dyn_cast_or_null<CXXMethodDecl>(FD)) {
    if (isa<CXXOperatorCallExpr>(CE) && MD->isImplicitObjectMemberFunction()) {
      if (ArgIdx == 0)
        return {};
      ParamIdx = ArgIdx - 1;
    } else if (isa<CXXMemberCallExpr>(CE) && MD->isExplicitObjectMemberFunction()) {
      ParamIdx = ArgIdx + 1;
    }
  }
  if (FD)
    return ParamIdx < FD->getNumParams() ? FD->getParamDecl(ParamIdx)->getType() : QualType();
  // A call through a pointer or reference to function: read the prototype.
  QualType T = CE->getCallee()->getType();
  if (const auto *PT = T->getAs<PointerType>())
    T = PT->getPointeeType();
  else if (const auto *RT = T->getAs<ReferenceType>())
    T = RT->getPointeeType();
  const auto *Proto = T->getAs<FunctionProtoType>();
  return Proto && ParamIdx < Proto->getNumParams() ? Proto->getParamType(ParamIdx) : QualType();
}

std::optional<unsigned> argIndex(const CallExpr *CE, const Expr *Arg) {
  for (unsigned I = 0; I < CE->getNumArgs(); ++I)
    if (CE->getArg(I) == Arg)
      return I;
  return std::nullopt;
}

std::optional<unsigned> argIndex(const CXXConstructExpr *CE, const Expr *Arg) {
  for (unsigned I = 0; I < CE->getNumArgs(); ++I)
    if (CE->getArg(I) == Arg)
      return I;
  return std::nullopt;
}

std::string calleeName(const CallExpr *CE) {
  if (const FunctionDecl *FD = CE->getDirectCallee())
    return FD->getNameAsString();
  return "call";
}

// Where a path leaves the scope of a value whose destructor or lifetime end
// \p Trigger caused.
std::pair<ExitKind, SourceLocation> exitOf(const Stmt *Trigger, SourceLocation Fallback) {
  if (!Trigger)
    return {ExitKind::EndOfScope, Fallback};
  if (const auto *R = dyn_cast<ReturnStmt>(Trigger))
    return {ExitKind::Return, R->getReturnLoc()};
  if (const auto *B = dyn_cast<BreakStmt>(Trigger))
    return {ExitKind::Break, B->getBeginLoc()};
  if (const auto *C = dyn_cast<ContinueStmt>(Trigger))
    return {ExitKind::Continue, C->getBeginLoc()};
  if (const auto *G = dyn_cast<GotoStmt>(Trigger))
    return {ExitKind::Goto, G->getGotoLoc()};
  if (const auto *G = dyn_cast<IndirectGotoStmt>(Trigger))
    return {ExitKind::Goto, G->getGotoLoc()};
  if (const auto *CS = dyn_cast<CompoundStmt>(Trigger))
    return {ExitKind::EndOfScope, CS->getRBracLoc()};
  return {ExitKind::EndOfScope, Trigger->getEndLoc()};
}

bool endsInThrow(const CFGBlock &B) {
  if (isa_and_nonnull<CXXThrowExpr>(B.getTerminatorStmt()))
    return true;
  for (auto It = B.rbegin(); It != B.rend(); ++It)
    if (auto CS = It->getAs<CFGStmt>())
      return isa<CXXThrowExpr>(CS->getStmt());
  return false;
}

//===----------------------------------------------------------------------===//
// The values a function owns
//===----------------------------------------------------------------------===//

// How a value starts: this decides what the protocol analysis assumes about it.
enum class InitKind {
  Empty,       // default-constructed or not initialised: no obligation yet
  Fresh,       // returned by a call or constructed here: not signalled
  FromTracked, // moved from another tracked value: inherits its signal state
  Unknown,     // from elsewhere (a parameter, a member): assume it may be signalled
};

struct TrackedValue {
  const ValueDecl *Decl = nullptr;
  const CXXRecordDecl *Record = nullptr;
  bool IsParameter = false;
  InitKind Init = InitKind::Unknown;
  int InitSource = -1; // FromTracked: the index of the source value
  std::string Name;    // for messages
  ReceivedAs Received = ReceivedAs::ByValue; // IsParameter: how the function got it
};

//===----------------------------------------------------------------------===//
// Events
//===----------------------------------------------------------------------===//

enum class EventKind { Use, MethodCall, Move, Escape, HandOff, Assign, Report };

struct Event {
  EventKind Kind = EventKind::Use;
  unsigned Value = 0;
  SourceLocation Loc;
  const FunctionDecl *Callee = nullptr;
  MethodRole Role;
  EscapeKind Escape = EscapeKind::Member;
  InitKind AssignInit = InitKind::Unknown; // Assign: what the new value is
  int AssignSource = -1;
  Finding Report; // Report: a finding about a temporary, emitted if reached
};

// Where one linear value goes, as decided by its context.
struct Flow {
  // ExchangeTarget: the old value moves out (the call's result), then the new one is
  // assigned in (std::exchange's first argument).
  enum Kind { Use, MethodCall, Moved, Escape, HandOff, AssignTarget, ExchangeTarget, Discard } K = Use;
  const Stmt *Anchor = nullptr; // where it happens (a CFG element, or below one)
  SourceLocation Loc;
  const FunctionDecl *Callee = nullptr;
  MethodRole Role;
  EscapeKind EscapeTo = EscapeKind::Member;
  bool UsedBeforeDiscard = false;
  InitKind AssignInit = InitKind::Unknown;
  int AssignSource = -1;
  // Moved into a new object (a move construction) that is then dropped.
  const CXXConstructExpr *DroppedObject = nullptr;
};

//===----------------------------------------------------------------------===//
// FlowClassifier
//===----------------------------------------------------------------------===//

class FlowClassifier {
public:
  FlowClassifier(LinearTypeModel &Model, const ParentMap &PM,
                 const llvm::DenseMap<const Decl *, unsigned> &Index,
                 const llvm::SmallPtrSetImpl<const Stmt *> &CtorInitRoots)
      : Model(Model), PM(PM), Index(Index), CtorInitRoots(CtorInitRoots) {}

  /// Follows \p Start (a reference to a tracked value, or a new temporary when
  /// \p Prvalue) up through its context to where it ends up.
  Flow classify(const Expr *Start, bool Prvalue, unsigned Depth = 0);

  /// What a value assigned or used to initialise a value starts as.
  std::pair<InitKind, int> initOf(const Expr *Init) const;

  int trackedIndex(const Decl *D) const {
    auto It = Index.find(D);
    return It == Index.end() ? -1 : static_cast<int>(It->second);
  }

private:
  static bool isTransparent(const Stmt *P, const Expr *Cur);
  // classify's walk; Arm is set to the innermost arm of a conditional operator it passes.
  Flow follow(const Expr *Start, bool Prvalue, unsigned Depth, const Expr *&Arm);
  Flow drop(const Expr *At, bool Prvalue, bool UsedBefore) const;
  Flow escape(const Stmt *Anchor, EscapeKind Kind, SourceLocation Loc) const;
  Flow methodCall(const CallExpr *Call, const CXXMethodDecl *MD, SourceLocation Loc) const;
  Flow fromCall(const CallExpr *CE, const Expr *Cur, bool Prvalue) const;
  Flow fromConstruct(const CXXConstructExpr *CCE, const Expr *Cur, bool Prvalue,
                     unsigned Depth);
  Flow fromMember(const MemberExpr *ME, const Expr *Cur, bool Prvalue) const;
  Flow fromDeclStmt(const DeclStmt *DS, const Expr *Cur, bool Prvalue) const;
  Flow fromLambda(const LambdaExpr *L, const Expr *Cur, bool Prvalue) const;
  Flow assignedInto(const Expr *LHS, const CallExpr *Call, const Expr *Source,
                    SourceLocation Loc) const;
  Flow movedIntoNewObject(const CXXConstructExpr *CCE, unsigned Depth);

  LinearTypeModel &Model;
  const ParentMap &PM;
  const llvm::DenseMap<const Decl *, unsigned> &Index;
  const llvm::SmallPtrSetImpl<const Stmt *> &CtorInitRoots;
};

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

Flow FlowClassifier::fromCall(const CallExpr *CE, const Expr *Cur, bool Prvalue) const {
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
  QualType PT = paramTypeAt(CE, FD, *ArgIdx);
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
  if (FD && isInStd(FD))
    return escape(CE, isHeapSink(FD) ? EscapeKind::Heap : EscapeKind::Container,
                  CE->getExprLoc());
  Flow F;
  F.K = Flow::Moved;
  F.Anchor = CE;
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
  if (isInStd(Ctor))
    return escape(CCE, isHeapSink(Ctor) ? EscapeKind::Heap : EscapeKind::Container,
                  CCE->getExprLoc());
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

//===----------------------------------------------------------------------===//
// EventCollector
//===----------------------------------------------------------------------===//

// Walks one function's own code: not the bodies of lambdas or local classes (they
// are functions of their own), not unevaluated operands.
class EventCollector : public RecursiveASTVisitor<EventCollector> {
  using Base = RecursiveASTVisitor<EventCollector>;

public:
  EventCollector(LinearTypeModel &Model, bool ReportEscapes, const ParentMap &PM,
                 llvm::SmallPtrSetImpl<const Stmt *> &CtorInitRoots)
      : Model(Model), ReportEscapes(ReportEscapes), PM(PM), CtorInitRoots(CtorInitRoots),
        Classifier(Model, PM, Index, CtorInitRoots) {}

  void addParameter(const ParmVarDecl *P);
  void addInitCaptures(const CXXMethodDecl *CallOperator);
  /// Pass 1 collects the tracked locals, pass 2 the events.
  void collectValues(Stmt *Root) {
    CollectingValues = true;
    TraverseStmt(Root);
  }
  void collectEvents(Stmt *Root) {
    CollectingValues = false;
    TraverseStmt(Root);
  }

  std::vector<TrackedValue> Values;
  llvm::DenseMap<const Decl *, unsigned> Index;
  // Events keyed by the statement they happen at, in traversal order.
  std::vector<std::pair<const Stmt *, Event>> Events;

  // RecursiveASTVisitor hooks.
  bool TraverseDecl(Decl *D);
  bool TraverseLambdaExpr(LambdaExpr *L);
  bool TraverseUnaryExprOrTypeTraitExpr(UnaryExprOrTypeTraitExpr *) { return true; }
  bool TraverseCXXNoexceptExpr(CXXNoexceptExpr *) { return true; }
  bool TraverseRequiresExpr(RequiresExpr *) { return true; }
  bool TraverseConceptSpecializationExpr(ConceptSpecializationExpr *) { return true; }
  bool TraverseCXXTypeidExpr(CXXTypeidExpr *E) {
    return E->isPotentiallyEvaluated() ? Base::TraverseCXXTypeidExpr(E) : true;
  }
  bool VisitVarDecl(VarDecl *VD);
  bool VisitDeclRefExpr(DeclRefExpr *DRE);
  bool VisitCallExpr(CallExpr *CE);
  bool VisitCXXConstructExpr(CXXConstructExpr *CCE);

private:
  void addValue(const ValueDecl *D, const CXXRecordDecl *RD, bool IsParameter, InitKind Init,
                int Source);
  void addTemporary(const Expr *E, const CXXRecordDecl *RD, std::string Name, bool ByCtor,
                    bool MovedFromElsewhere = false);
  void addDroppedObject(const CXXConstructExpr *CCE, bool UsedBefore);
  bool inThisFunction(const Stmt *S) const {
    return PM.hasParent(S) || CtorInitRoots.count(S);
  }

  LinearTypeModel &Model;
  bool ReportEscapes;
  const ParentMap &PM;
  llvm::SmallPtrSetImpl<const Stmt *> &CtorInitRoots;
  FlowClassifier Classifier;
  bool CollectingValues = true;
};

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
  if (!CollectingValues || isa<ParmVarDecl>(VD) || isa<DecompositionDecl>(VD) ||
      !VD->hasLocalStorage() || VD->isInitCapture())
    return true;
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
  }
  return true;
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
    if (F.DroppedObject)
      addDroppedObject(F.DroppedObject, F.UsedBeforeDiscard);
    break;
  case Flow::Escape:
    E.Kind = EventKind::Escape;
    E.Escape = F.EscapeTo;
    E.Loc = F.Loc;
    break;
  case Flow::HandOff:
    E.Kind = EventKind::HandOff;
    break;
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

//===----------------------------------------------------------------------===//
// Solver: the dataflow
//===----------------------------------------------------------------------===//

// A value's possible states at one point: a set, since paths merge.
enum StateBit : uint8_t {
  Empty = 1,     // no obligation: not yet acquired, default-constructed, or out of scope
  Live = 2,      // holds an obligation
  Released = 4,  // consumed
  Moved = 8,     // moved from: the obligation went elsewhere
  Untracked = 16 // escaped or handed off: the analysis stops following it
};

struct ValueState {
  uint8_t Bits = Empty;
  bool MaySignalled = false; // a signalling use on some path since acquisition
  bool MayArrived = false;   // an arrival on some path, not yet followed by a consume
  SourceLocation AcquiredAt, ReleasedAt, MovedAt, ArrivedAt;

  bool operator==(const ValueState &O) const {
    return Bits == O.Bits && MaySignalled == O.MaySignalled && MayArrived == O.MayArrived &&
           AcquiredAt == O.AcquiredAt && ReleasedAt == O.ReleasedAt && MovedAt == O.MovedAt &&
           ArrivedAt == O.ArrivedAt;
  }
};

struct FlowState {
  bool Reachable = false;
  llvm::SmallVector<ValueState, 4> Values;
  bool operator==(const FlowState &O) const {
    return Reachable == O.Reachable && Values == O.Values;
  }
};

struct RawFinding {
  Finding F;
  int Value = -1; // the tracked value, for de-duplication
};

class Solver {
public:
  Solver(const CFG &G, const SourceManager &SM, const std::vector<TrackedValue> &Values,
         const llvm::DenseMap<const Stmt *, llvm::SmallVector<const Event *, 2>> &EventsAt,
         bool ReportEscapes, SourceLocation BodyEnd)
      : G(G), SM(SM), Values(Values), EventsAt(EventsAt), ReportEscapes(ReportEscapes),
        BodyEnd(BodyEnd) {}

  /// Iterates to a fixpoint; false if it did not converge within the budget.
  bool solve(unsigned MaxVisitsPerBlock);
  /// Replays every reachable block once, reporting.
  std::vector<RawFinding> report();

private:
  FlowState entryState() const;
  FlowState inState(const CFGBlock &B) const;
  FlowState transfer(const CFGBlock &B, FlowState S, std::vector<RawFinding> *Out) const;
  void applyStmt(const Stmt *S, FlowState &State, std::vector<RawFinding> *Out) const;
  void applyEvent(const Event &E, FlowState &State, std::vector<RawFinding> *Out) const;
  // A finding of this kind about the value an event touches, located at the event.
  RawFinding findingAt(FindingKind Kind, const Event &E) const;
  void acquire(unsigned V, InitKind Init, int Source, SourceLocation At,
               FlowState &State) const;
  void endLifetime(const VarDecl *VD, const Stmt *Trigger, FlowState &State,
                   std::vector<RawFinding> *Out) const;
  void checkParametersAtExit(std::vector<RawFinding> &Out) const;
  bool reportUseAfter(unsigned V, const ValueState &VS, bool IsConsume, SourceLocation Loc,
                      std::vector<RawFinding> *Out) const;
  void reportNotReleased(unsigned V, const ValueState &VS, ExitKind Exit, SourceLocation Loc,
                         std::vector<RawFinding> *Out) const;
  static void join(FlowState &Into, const FlowState &From, const SourceManager &SM);
  bool before(SourceLocation A, SourceLocation B) const {
    return A.isValid() && B.isValid() && SM.isBeforeInTranslationUnit(A, B);
  }

  const CFG &G;
  const SourceManager &SM;
  const std::vector<TrackedValue> &Values;
  const llvm::DenseMap<const Stmt *, llvm::SmallVector<const Event *, 2>> &EventsAt;
  bool ReportEscapes;
  SourceLocation BodyEnd;
  std::vector<FlowState> Out; // per block id
};

FlowState Solver::entryState() const {
  FlowState S;
  S.Reachable = true;
  S.Values.resize(Values.size());
  for (unsigned V = 0; V < Values.size(); ++V) {
    if (!Values[V].IsParameter)
      continue;
    // The caller may have signalled a parameter already: assume it did.
    S.Values[V].Bits = Live;
    S.Values[V].MaySignalled = true;
    S.Values[V].AcquiredAt = Values[V].Decl->getLocation();
  }
  return S;
}

// Join: the union of possible states; for each remembered location, the earliest.
void Solver::join(FlowState &Into, const FlowState &From, const SourceManager &SM) {
  if (!From.Reachable)
    return;
  if (!Into.Reachable) {
    Into = From;
    return;
  }
  auto Earliest = [&](SourceLocation &A, SourceLocation B) {
    if (B.isValid() && (A.isInvalid() || SM.isBeforeInTranslationUnit(B, A)))
      A = B;
  };
  for (unsigned V = 0; V < Into.Values.size(); ++V) {
    ValueState &I = Into.Values[V];
    const ValueState &F = From.Values[V];
    I.Bits |= F.Bits;
    I.MaySignalled |= F.MaySignalled;
    I.MayArrived |= F.MayArrived;
    Earliest(I.AcquiredAt, F.AcquiredAt);
    Earliest(I.ReleasedAt, F.ReleasedAt);
    Earliest(I.MovedAt, F.MovedAt);
    Earliest(I.ArrivedAt, F.ArrivedAt);
  }
}

// The block that dispatches a `try`'s exceptions to its handlers: with no exceptional edges in
// the CFG it has no predecessors, and its handlers would never be analysed.
static bool isHandlerDispatch(const CFGBlock &B) {
  return B.pred_empty() && isa_and_nonnull<CXXTryStmt>(B.getTerminatorStmt());
}

FlowState Solver::inState(const CFGBlock &B) const {
  if (&B == &G.getEntry())
    return entryState();
  if (isHandlerDispatch(B)) {
    // Handlers are analysed from here, for the values they create: what the function held
    // when something threw is not modelled (no exceptional edges), so every value starts
    // empty there rather than guessed live or released.
    FlowState S;
    S.Reachable = true;
    S.Values.resize(Values.size());
    return S;
  }
  FlowState S;
  S.Values.resize(Values.size());
  for (const CFGBlock *Pred : B.preds())
    if (Pred)
      join(S, Out[Pred->getBlockID()], SM);
  return S;
}

void Solver::acquire(unsigned V, InitKind Init, int Source, SourceLocation At,
                     FlowState &State) const {
  ValueState &VS = State.Values[V];
  ValueState Fresh;
  if (Init == InitKind::Empty) {
    VS = Fresh;
    return;
  }
  Fresh.Bits = Live;
  Fresh.AcquiredAt = At;
  if (Init == InitKind::FromTracked && Source >= 0) {
    Fresh.MaySignalled = State.Values[Source].MaySignalled;
    Fresh.MayArrived = State.Values[Source].MayArrived;
    Fresh.ArrivedAt = State.Values[Source].ArrivedAt;
  } else if (Init == InitKind::Unknown) {
    Fresh.MaySignalled = true;
  }
  VS = Fresh;
}

bool Solver::reportUseAfter(unsigned V, const ValueState &VS, bool IsConsume,
                            SourceLocation Loc, std::vector<RawFinding> *Out) const {
  if (!(VS.Bits & (Released | Moved)) || (VS.Bits & Untracked))
    return false;
  if (!Out)
    return true;
  const bool WasReleased = VS.Bits & Released;
  RawFinding R;
  R.Value = V;
  R.F.Kind = FindingKind::UseAfter;
  R.F.Loc = Loc;
  R.F.Name = Values[V].Name;
  R.F.Record = Values[V].Record;
  R.F.UseAfter = IsConsume ? (WasReleased ? UseAfterKind::ReleasedTwice
                                          : UseAfterKind::ReleasedAfterMove)
                           : (WasReleased ? UseAfterKind::UsedAfterRelease
                                          : UseAfterKind::UsedAfterMove);
  R.F.OriginLoc = WasReleased ? VS.ReleasedAt : VS.MovedAt;
  // The origin at or after the use in the source: reached again around a loop.
  R.F.OriginInEarlierIteration = Loc == R.F.OriginLoc || before(Loc, R.F.OriginLoc);
  Out->push_back(std::move(R));
  return true;
}

void Solver::reportNotReleased(unsigned V, const ValueState &VS, ExitKind Exit,
                               SourceLocation Loc, std::vector<RawFinding> *Out) const {
  if (!Out || !(VS.Bits & Live) || (VS.Bits & Untracked))
    return;
  RawFinding R;
  R.Value = V;
  R.F.Kind = FindingKind::NotReleased;
  R.F.Loc = Loc;
  R.F.Name = Values[V].Name;
  R.F.Record = Values[V].Record;
  R.F.IsParameter = Values[V].IsParameter;
  R.F.Received = Values[V].Received;
  R.F.Definite = !(VS.Bits & (Empty | Released | Moved));
  R.F.Exit = Exit;
  R.F.AcquiredLoc = VS.AcquiredAt;
  Out->push_back(std::move(R));
}

RawFinding Solver::findingAt(FindingKind Kind, const Event &E) const {
  RawFinding R{{}, static_cast<int>(E.Value)};
  R.F.Kind = Kind;
  R.F.Loc = E.Loc;
  R.F.Name = Values[E.Value].Name;
  R.F.Record = Values[E.Value].Record;
  return R;
}

void Solver::applyEvent(const Event &E, FlowState &State, std::vector<RawFinding> *Out) const {
  if (E.Kind == EventKind::Report) {
    if (Out)
      Out->push_back({E.Report, -1});
    return;
  }
  ValueState &VS = State.Values[E.Value];
  const uint8_t Keep = VS.Bits & Untracked;
  switch (E.Kind) {
  case EventKind::Use:
    reportUseAfter(E.Value, VS, false, E.Loc, Out);
    return;
  case EventKind::MethodCall: {
    const bool WasLive = (VS.Bits & Live) && !(VS.Bits & Untracked);
    reportUseAfter(E.Value, VS, E.Role.Consume, E.Loc, Out);
    if (WasLive && Out && E.Role.Consume && E.Role.NeedsSignal && !VS.MaySignalled) {
      RawFinding R = findingAt(FindingKind::MissingSignal, E);
      R.F.CallName = E.Callee->getNameAsString();
      R.F.AcquiredLoc = VS.AcquiredAt;
      Out->push_back(std::move(R));
    }
    if (WasLive && Out && E.Role.Consume && E.Role.Arrives && VS.MayArrived) {
      RawFinding R = findingAt(FindingKind::DoubleArrival, E);
      R.F.CallName = E.Callee->getNameAsString();
      R.F.OriginLoc = VS.ArrivedAt;
      Out->push_back(std::move(R));
    }
    if (E.Role.Consume) {
      VS.Bits = Released | Keep;
      VS.ReleasedAt = E.Loc;
      VS.MayArrived = false;
      return;
    }
    VS.MaySignalled |= E.Role.Signals;
    if (E.Role.Arrives) {
      VS.MayArrived = true;
      VS.ArrivedAt = E.Loc;
    }
    return;
  }
  case EventKind::Move:
    reportUseAfter(E.Value, VS, false, E.Loc, Out);
    VS.Bits = Moved | Keep;
    VS.MovedAt = E.Loc;
    return;
  case EventKind::Escape:
    if (!reportUseAfter(E.Value, VS, false, E.Loc, Out) && ReportEscapes && Out &&
        (VS.Bits & Live) && !(VS.Bits & Untracked)) {
      RawFinding R = findingAt(FindingKind::Escape, E);
      R.F.Escape = E.Escape;
      Out->push_back(std::move(R));
    }
    VS.Bits = Untracked;
    return;
  case EventKind::HandOff:
    reportUseAfter(E.Value, VS, false, E.Loc, Out);
    VS.Bits = Untracked;
    return;
  case EventKind::Assign:
    reportNotReleased(E.Value, VS, ExitKind::Assignment, E.Loc, Out);
    acquire(E.Value, E.AssignInit, E.AssignSource, E.Loc, State);
    return;
  case EventKind::Report:
    return;
  }
}

void Solver::applyStmt(const Stmt *S, FlowState &State, std::vector<RawFinding> *Out) const {
  // A declaration acquires its variable once the initialiser has run.
  if (const auto *DS = dyn_cast<DeclStmt>(S)) {
    for (const Decl *D : DS->decls()) {
      for (unsigned V = 0; V < Values.size(); ++V) {
        if (Values[V].Decl != D || Values[V].IsParameter)
          continue;
        const auto *VD = cast<VarDecl>(D);
        acquire(V, Values[V].Init, Values[V].InitSource, VD->getLocation(), State);
      }
    }
  }
  auto It = EventsAt.find(S);
  if (It == EventsAt.end())
    return;
  for (const Event *E : It->second)
    applyEvent(*E, State, Out);
}

void Solver::endLifetime(const VarDecl *VD, const Stmt *Trigger, FlowState &State,
                         std::vector<RawFinding> *Out) const {
  for (unsigned V = 0; V < Values.size(); ++V) {
    // Parameters are checked where the function exits (see checkParametersAtExit).
    if (Values[V].Decl != VD || Values[V].IsParameter)
      continue;
    ValueState &VS = State.Values[V];
    auto [Exit, Loc] = exitOf(Trigger, BodyEnd);
    reportNotReleased(V, VS, Exit, Loc, Out);
    VS = ValueState();
  }
}

FlowState Solver::transfer(const CFGBlock &B, FlowState S,
                           std::vector<RawFinding> *Out) const {
  if (!S.Reachable)
    return S;
  for (const CFGElement &El : B) {
    if (auto CS = El.getAs<CFGStmt>())
      applyStmt(CS->getStmt(), S, Out);
    else if (auto Dtor = El.getAs<CFGAutomaticObjDtor>())
      endLifetime(Dtor->getVarDecl(), Dtor->getTriggerStmt(), S, Out);
    else if (auto End = El.getAs<CFGLifetimeEnds>())
      endLifetime(End->getVarDecl(), End->getTriggerStmt(), S, Out);
  }
  // A path ending in a [[noreturn]] call (abort, trap, terminate) leaks nothing.
  if (B.hasNoReturnElement())
    S.Reachable = false;
  return S;
}

bool Solver::solve(unsigned MaxVisitsPerBlock) {
  Out.assign(G.getNumBlockIDs(), FlowState());
  for (FlowState &S : Out)
    S.Values.resize(Values.size());
  // Reverse post-order numbering, so the worklist visits predecessors first. Roots: the
  // entry, then each handler dispatch block (see isHandlerDispatch).
  std::vector<unsigned> Order(G.getNumBlockIDs(), ~0u);
  {
    std::vector<const CFGBlock *> Roots{&G.getEntry()};
    for (const CFGBlock *B : G)
      if (B && isHandlerDispatch(*B))
        Roots.push_back(B);
    std::vector<const CFGBlock *> Post;
    std::vector<std::pair<const CFGBlock *, CFGBlock::const_succ_iterator>> Stack;
    std::vector<bool> Seen(G.getNumBlockIDs(), false);
    for (const CFGBlock *Root : Roots) {
      if (Seen[Root->getBlockID()])
        continue;
      Stack.push_back({Root, Root->succ_begin()});
      Seen[Root->getBlockID()] = true;
      while (!Stack.empty()) {
        auto &[Block, It] = Stack.back();
        if (It == Block->succ_end()) {
          Post.push_back(Block);
          Stack.pop_back();
          continue;
        }
        const CFGBlock *Next = *It;
        ++It;
        if (Next && !Seen[Next->getBlockID()]) {
          Seen[Next->getBlockID()] = true;
          Stack.push_back({Next, Next->succ_begin()});
        }
      }
    }
    unsigned N = 0;
    for (auto It = Post.rbegin(); It != Post.rend(); ++It)
      Order[(*It)->getBlockID()] = N++;
  }
  std::vector<const CFGBlock *> ById(G.getNumBlockIDs(), nullptr);
  for (const CFGBlock *B : G)
    ById[B->getBlockID()] = B;
  std::set<std::pair<unsigned, unsigned>> Work; // (rpo index, block id)
  std::vector<unsigned> Visits(G.getNumBlockIDs(), 0);
  Work.insert({Order[G.getEntry().getBlockID()], G.getEntry().getBlockID()});
  for (const CFGBlock *B : G)
    if (B && isHandlerDispatch(*B))
      Work.insert({Order[B->getBlockID()], B->getBlockID()});
  while (!Work.empty()) {
    const unsigned Id = Work.begin()->second;
    Work.erase(Work.begin());
    const CFGBlock *B = ById[Id];
    if (!B)
      continue;
    if (++Visits[Id] > MaxVisitsPerBlock)
      return false;
    FlowState New = transfer(*B, inState(*B), nullptr);
    if (Visits[Id] > 1 && New == Out[Id])
      continue;
    Out[Id] = std::move(New);
    for (const CFGBlock *Succ : B->succs())
      if (Succ && Order[Succ->getBlockID()] != ~0u)
        Work.insert({Order[Succ->getBlockID()], Succ->getBlockID()});
  }
  return true;
}

void Solver::checkParametersAtExit(std::vector<RawFinding> &Found) const {
  const CFGBlock &Exit = G.getExit();
  for (const CFGBlock *Pred : Exit.preds()) {
    // Paths that end in a [[noreturn]] call or a throw do not return to the caller.
    if (!Pred || Pred->hasNoReturnElement() || endsInThrow(*Pred))
      continue;
    const FlowState &S = Out[Pred->getBlockID()];
    if (!S.Reachable)
      continue;
    ExitKind Kind = ExitKind::EndOfFunction;
    SourceLocation Loc = BodyEnd;
    for (const CFGElement &El : *Pred)
      if (auto CS = El.getAs<CFGStmt>())
        if (const auto *R = dyn_cast<ReturnStmt>(CS->getStmt())) {
          Kind = ExitKind::Return;
          Loc = R->getReturnLoc();
        }
    for (unsigned V = 0; V < Values.size(); ++V)
      if (Values[V].IsParameter)
        reportNotReleased(V, S.Values[V], Kind, Loc, &Found);
  }
}

std::vector<RawFinding> Solver::report() {
  std::vector<RawFinding> Found;
  for (const CFGBlock *B : G) {
    FlowState In = inState(*B);
    if (!In.Reachable)
      continue;
    Out[B->getBlockID()] = transfer(*B, std::move(In), &Found);
  }
  checkParametersAtExit(Found);
  return Found;
}

// Sorted by location; one report per identical finding, and only the first use
// after each release or move (later uses add nothing).
std::vector<Finding> finalize(std::vector<RawFinding> Raw, const SourceManager &SM) {
  // Stable without std::stable_sort: ties keep the order the replay found them in.
  std::vector<unsigned> Order(Raw.size());
  for (unsigned I = 0; I < Order.size(); ++I)
    Order[I] = I;
  std::sort(Order.begin(), Order.end(), [&](unsigned A, unsigned B) {
    const Finding &FA = Raw[A].F, &FB = Raw[B].F;
    if (FA.Loc != FB.Loc) {
      if (FA.Loc.isInvalid() || FB.Loc.isInvalid())
        return FA.Loc.isInvalid() && FB.Loc.isValid();
      return SM.isBeforeInTranslationUnit(FA.Loc, FB.Loc);
    }
    if (FA.Kind != FB.Kind)
      return static_cast<int>(FA.Kind) < static_cast<int>(FB.Kind);
    return A < B;
  });
  std::set<std::tuple<int, unsigned, unsigned, int, std::string, bool>> Seen;
  std::set<std::tuple<int, unsigned, bool>> UseAfterOrigins;
  std::vector<Finding> Result;
  for (unsigned I : Order) {
    RawFinding &R = Raw[I];
    const Finding &F = R.F;
    if (!Seen.insert({static_cast<int>(F.Kind), F.Loc.getRawEncoding(),
                      static_cast<unsigned>(F.Exit), R.Value, F.Name, F.Definite})
             .second)
      continue;
    if (F.Kind == FindingKind::UseAfter &&
        !UseAfterOrigins
             .insert({R.Value, F.OriginLoc.getRawEncoding(),
                      F.UseAfter == UseAfterKind::ReleasedTwice ||
                          F.UseAfter == UseAfterKind::ReleasedAfterMove})
             .second)
      continue;
    Result.push_back(std::move(R.F));
  }
  return Result;
}

} // namespace

//===----------------------------------------------------------------------===//
// LinearFlowAnalysis
//===----------------------------------------------------------------------===//

std::vector<Finding> LinearFlowAnalysis::analyze(const FunctionDecl *FD) {
  Stmt *Body = FD ? FD->getBody() : nullptr;
  if (!Body || isa<CoroutineBodyStmt>(Body))
    return {};

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

  EventCollector Collector(Model, ReportEscapes, PM, CtorInitRoots);
  for (const ParmVarDecl *P : FD->parameters())
    Collector.addParameter(P);
  if (const auto *MD = dyn_cast<CXXMethodDecl>(FD); MD && MD->getOverloadedOperator() == OO_Call)
    Collector.addInitCaptures(MD);
  Collector.collectValues(Body);
  const bool HasLinearValues = !Collector.Values.empty();
  Collector.collectEvents(Body);
  for (Stmt *Init : CtorInits)
    Collector.collectEvents(Init);
  // Nothing linear here: nothing to analyse (the common case, kept cheap).
  if (!HasLinearValues && Collector.Events.empty())
    return {};
  if (Collector.Values.size() > Limits.MaxTrackedValues)
    return {};

  CFG::BuildOptions Options;
  Options.AddImplicitDtors = true;
  Options.AddTemporaryDtors = true;
  Options.AddLifetime = true;
  Options.AddInitializers = true;
  Options.AddCXXDefaultInitExprInCtors = true;
  Options.setAllAlwaysAdd();
  std::unique_ptr<CFG> G = CFG::buildCFG(FD, Body, &Context, Options);
  if (!G || G->getNumBlockIDs() > Limits.MaxBlocks)
    return {};

  // Anchor each event on the CFG element it happens at (or the nearest enclosing one).
  llvm::DenseSet<const Stmt *> InCFG;
  for (const CFGBlock *B : *G)
    for (const CFGElement &El : *B)
      if (auto CS = El.getAs<CFGStmt>())
        InCFG.insert(CS->getStmt());
  llvm::DenseMap<const Stmt *, llvm::SmallVector<const Event *, 2>> EventsAt;
  for (int Pass = 0; Pass < 2; ++Pass) {
    // Assignments last: the right-hand side is evaluated (and moved from) first.
    for (const auto &[Anchor, E] : Collector.Events) {
      if ((E.Kind == EventKind::Assign) != (Pass == 1))
        continue;
      const Stmt *At = Anchor;
      while (At && !InCFG.count(At))
        At = PM.getParent(At);
      if (At)
        EventsAt[At].push_back(&E);
    }
  }

  SourceLocation BodyEnd = Body->getEndLoc();
  if (const auto *CS = dyn_cast<CompoundStmt>(Body))
    BodyEnd = CS->getRBracLoc();
  Solver S(*G, Context.getSourceManager(), Collector.Values, EventsAt, ReportEscapes, BodyEnd);
  if (!S.solve(Limits.MaxVisitsPerBlock))
    return {};
  return finalize(S.report(), Context.getSourceManager());
}

} // namespace linpipe::tidy
