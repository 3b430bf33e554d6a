//===--- AstHelpers.cpp - linpipe clang-tidy checks -----------------------===//
//
// The AST questions the flow analysis asks (see FlowFacts.h).
//
//===----------------------------------------------------------------------===//

#include "FlowFacts.h"
#include "llvm/ADT/STLExtras.h"

namespace linpipe::tidy::flow {

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

std::optional<std::pair<const Expr *, const Expr *>> swapOperands(const CallExpr *CE) {
  if (isStdNamed(CE->getDirectCallee(), {"swap"}) && CE->getNumArgs() == 2)
    return std::make_pair(CE->getArg(0), CE->getArg(1));
  // std::ranges::swap is an object: the call is its operator(), the object first.
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(CE);
      Op && Op->getOperator() == OO_Call && Op->getNumArgs() == 3)
    if (const auto *Object = dyn_cast<DeclRefExpr>(Op->getArg(0)->IgnoreImplicit());
        Object && isStdNamed(Object->getDecl(), {"swap"}))
      return std::make_pair(Op->getArg(1), Op->getArg(2));
  return std::nullopt;
}

// A std callee that stores what it is given on the heap rather than in a container.
bool isStdAggregate(const FunctionDecl *FD) {
  if (isStdNamed(FD, {"make_pair", "make_tuple", "forward_as_tuple"}))
    return true;
  const auto *Ctor = dyn_cast_or_null<CXXConstructorDecl>(FD);
  return Ctor && isStdNamed(Ctor->getParent(), {"pair", "tuple"});
}

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

bool isInvokeLike(const FunctionDecl *FD) { return isStdNamed(FD, {"invoke", "invoke_r"}); }

std::optional<unsigned> paramIndexAt(const CallExpr *CE, const FunctionDecl *FD, unsigned ArgIdx) {
  unsigned ParamIdx = ArgIdx;
  if (const auto *MD = dyn_cast_or_null<CXXMethodDecl>(FD)) {
    if (isa<CXXOperatorCallExpr>(CE) && MD->isImplicitObjectMemberFunction()) {
      if (ArgIdx == 0)
        return std::nullopt;
      ParamIdx = ArgIdx - 1;
    } else if (isa<CXXMemberCallExpr>(CE) && MD->isExplicitObjectMemberFunction()) {
      ParamIdx = ArgIdx + 1;
    }
  }
  return ParamIdx;
}

QualType paramTypeAt(const CallExpr *CE, const FunctionDecl *FD, unsigned ArgIdx) {
  std::optional<unsigned> Index = paramIndexAt(CE, FD, ArgIdx);
  if (!Index)
    return {};
  const unsigned ParamIdx = *Index;
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

llvm::DenseSet<const Stmt *> cfgStatements(const CFG &G) {
  llvm::DenseSet<const Stmt *> InCFG;
  for (const CFGBlock *B : G)
    for (const CFGElement &El : *B)
      if (auto CS = El.getAs<CFGStmt>())
        InCFG.insert(CS->getStmt());
  return InCFG;
}

const Stmt *cfgAnchor(const Stmt *S, const llvm::DenseSet<const Stmt *> &InCFG,
                      const ParentMap &PM) {
  while (S && !InCFG.count(S))
    S = PM.getParent(S);
  return S;
}

} // namespace linpipe::tidy::flow
