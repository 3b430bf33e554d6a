//===--- ProxyFenceAnalysis.cpp - linpipe clang-tidy checks ---------------===//
//
// See ProxyFenceAnalysis.h.
//
//===----------------------------------------------------------------------===//

#include "ProxyFenceAnalysis.h"
#include "FlowFacts.h"
#include "LinearFlowAnalysis.h"
#include "clang/AST/ParentMap.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Analysis/CFG.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include <algorithm>
#include <optional>

using namespace clang;

namespace linpipe::tidy {
namespace {

enum class AccessKind { GenericWrite, Fence, AsyncRead, AsyncWrite };

struct Access {
  AccessKind Kind;
  SourceLocation Loc;
  const FunctionDecl *Callee = nullptr;
};

// The slot-derived locals and the accesses of one function's own code (not its lambdas').
class AccessCollector : public RecursiveASTVisitor<AccessCollector> {
  using Base = RecursiveASTVisitor<AccessCollector>;

public:
  explicit AccessCollector(LinearTypeModel &Model, unsigned Depth = 0)
      : Model(Model), Depth(Depth) {}
  // Follow writes through \p D as through slot memory (a callee's pointer parameter).
  void seed(const Decl *D) { Slots.insert(D); }

  std::vector<std::pair<const Stmt *, Access>> Accesses;
  bool HasAsync = false;

  bool TraverseLambdaExpr(LambdaExpr *L) {
    for (Expr *Init : L->capture_inits())
      if (Init && !TraverseStmt(Init))
        return false;
    return true;
  }
  bool TraverseDecl(Decl *D) {
    return D && isa<VarDecl>(D) ? Base::TraverseDecl(D) : true;
  }
  bool TraverseUnaryExprOrTypeTraitExpr(UnaryExprOrTypeTraitExpr *) { return true; }
  bool TraverseCXXNoexceptExpr(CXXNoexceptExpr *) { return true; }
  bool TraverseCXXTypeidExpr(CXXTypeidExpr *E) {
    return E->isPotentiallyEvaluated() ? Base::TraverseCXXTypeidExpr(E) : true;
  }

  bool VisitVarDecl(VarDecl *VD) {
    QualType T = VD->getType();
    if ((T->isPointerType() || T->isReferenceType()) && VD->getInit() &&
        derived(VD->getInit()))
      Slots.insert(VD);
    return true;
  }
  bool VisitBinaryOperator(BinaryOperator *BO) {
    if (BO->isAssignmentOp() && derived(BO->getLHS()))
      add(BO, AccessKind::GenericWrite, BO->getOperatorLoc());
    return true;
  }
  bool VisitUnaryOperator(UnaryOperator *UO) {
    if (UO->isIncrementDecrementOp() && derived(UO->getSubExpr()))
      add(UO, AccessKind::GenericWrite, UO->getOperatorLoc());
    return true;
  }
  bool VisitCallExpr(CallExpr *CE) {
    const FunctionDecl *FD = CE->getDirectCallee();
    const MethodRole Role = Model.roleOf(FD);
    if (Role.ProxyFence)
      return add(CE, AccessKind::Fence, CE->getBeginLoc(), FD);
    if (Role.AsyncProxyRead || Role.AsyncProxyWrite) {
      HasAsync = true;
      return add(CE, Role.AsyncProxyRead ? AccessKind::AsyncRead : AccessKind::AsyncWrite,
                 CE->getBeginLoc(), FD);
    }
    if (Model.isSlotAccessor(FD) || flow::isMoveLike(FD))
      return true;
    const auto *Op = dyn_cast<CXXOperatorCallExpr>(CE);
    if (Op && Op->isAssignmentOp() && Op->getNumArgs() >= 1 && derived(Op->getArg(0)))
      return add(CE, AccessKind::GenericWrite, Op->getOperatorLoc());
    // A non-const member function called on slot memory.
    if (const auto *MC = dyn_cast<CXXMemberCallExpr>(CE))
      if (const CXXMethodDecl *MD = MC->getMethodDecl();
          MD && !MD->isConst() && !MD->isStatic() && derived(MC->getImplicitObjectArgument()))
        return add(CE, AccessKind::GenericWrite, MC->getExprLoc());
    // Slot memory lent to a callee that may write it: a non-const pointer or reference.
    for (unsigned I = 0; I < CE->getNumArgs(); ++I) {
      QualType PT = flow::paramTypeAt(CE, FD, I);
      if (PT.isNull() || !(PT->isPointerType() || PT->isLValueReferenceType()) ||
          PT->getPointeeType().isConstQualified())
        continue;
      if (derived(CE->getArg(I)) && mayWriteThrough(FD, CE, I))
        return add(CE, AccessKind::GenericWrite, CE->getArg(I)->getBeginLoc());
    }
    return true;
  }
  // Inline assembly given slot memory (an address operand) may write it.
  bool VisitGCCAsmStmt(GCCAsmStmt *Asm) {
    for (unsigned I = 0; I < Asm->getNumInputs(); ++I)
      if (derived(Asm->getInputExpr(I)))
        return add(Asm, AccessKind::GenericWrite, Asm->getAsmLoc());
    for (unsigned I = 0; I < Asm->getNumOutputs(); ++I)
      if (derived(Asm->getOutputExpr(I)))
        return add(Asm, AccessKind::GenericWrite, Asm->getAsmLoc());
    return true;
  }

private:
  // Whether the callee may write through its parameter for argument \p ArgIdx: a body this
  // translation unit has is searched for writes through it (two levels down); any other
  // callee (no body, a module's or a system header's) is assumed to.
  bool mayWriteThrough(const FunctionDecl *FD, const CallExpr *CE, unsigned ArgIdx) const {
    const FunctionDecl *Def = nullptr;
    std::optional<unsigned> ParamIdx = flow::paramIndexAt(CE, FD, ArgIdx);
    if (!FD || !ParamIdx || !FD->hasBody(Def) || !Def || *ParamIdx >= Def->getNumParams() ||
        Def->isFromASTFile() || Depth >= 2 || FD->isVariadic())
      return true;
    AccessCollector Callee(Model, Depth + 1);
    Callee.seed(Def->getParamDecl(*ParamIdx));
    Callee.TraverseStmt(Def->getBody());
    return llvm::any_of(Callee.Accesses, [](const auto &A) {
      return A.second.Kind == AccessKind::GenericWrite;
    });
  }

  bool add(const Stmt *S, AccessKind Kind, SourceLocation Loc,
           const FunctionDecl *Callee = nullptr) {
    Accesses.push_back({S, {Kind, Loc, Callee}});
    return true;
  }
  // Whether \p E is (an address into) memory reached from a slot accessor: only the operand
  // that carries the address is followed (an index read from a slot is not slot memory).
  bool derived(const Expr *E, unsigned Depth = 0) const {
    if (!E || Depth > 32)
      return false;
    E = E->IgnoreParenImpCasts();
    if (const auto *Cast = dyn_cast<ExplicitCastExpr>(E))
      return derived(Cast->getSubExpr(), Depth + 1);
    if (const auto *MTE = dyn_cast<MaterializeTemporaryExpr>(E))
      return derived(MTE->getSubExpr(), Depth + 1);
    if (const auto *DRE = dyn_cast<DeclRefExpr>(E))
      return Slots.contains(DRE->getDecl());
    if (const auto *ME = dyn_cast<MemberExpr>(E))
      return derived(ME->getBase(), Depth + 1);
    if (const auto *AS = dyn_cast<ArraySubscriptExpr>(E))
      return derived(AS->getBase(), Depth + 1);
    if (const auto *UO = dyn_cast<UnaryOperator>(E))
      return (UO->getOpcode() == UO_Deref || UO->getOpcode() == UO_AddrOf) &&
             derived(UO->getSubExpr(), Depth + 1);
    if (const auto *BO = dyn_cast<BinaryOperator>(E)) {
      if (!BO->isAdditiveOp())
        return false;
      const Expr *Pointer = BO->getLHS()->getType()->isPointerType() ? BO->getLHS() : BO->getRHS();
      return Pointer->getType()->isPointerType() && derived(Pointer, Depth + 1);
    }
    if (const auto *CO = dyn_cast<AbstractConditionalOperator>(E))
      return derived(CO->getTrueExpr(), Depth + 1) || derived(CO->getFalseExpr(), Depth + 1);
    if (const auto *CE = dyn_cast<CallExpr>(E)) {
      if (Model.isSlotAccessor(CE->getDirectCallee()))
        return true;
      if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(CE))
        return Op->getNumArgs() > 0 && derived(Op->getArg(0), Depth + 1);
      if (const auto *MC = dyn_cast<CXXMemberCallExpr>(CE))
        return MC->getType()->isReferenceType() || MC->getType()->isPointerType()
                   ? derived(MC->getImplicitObjectArgument(), Depth + 1)
                   : false;
    }
    return false;
  }

  LinearTypeModel &Model;
  unsigned Depth;
  llvm::DenseSet<const Decl *> Slots;
};

struct PathState {
  bool Reachable = false;
  bool MayWritten = false;
  SourceLocation WrittenAt; // the earliest unfenced write reaching here
  bool operator==(const PathState &O) const {
    return Reachable == O.Reachable && MayWritten == O.MayWritten && WrittenAt == O.WrittenAt;
  }
};

} // namespace

std::vector<Finding> ProxyFenceAnalysis::analyze(const FunctionDecl *FD) {
  Stmt *Body = FD ? FD->getBody() : nullptr;
  if (!Body || isa<CoroutineBodyStmt>(Body))
    return {};
  AccessCollector Collector(Model);
  Collector.TraverseStmt(Body);
  const bool HasWrite = llvm::any_of(Collector.Accesses, [](const auto &A) {
    return A.second.Kind == AccessKind::GenericWrite;
  });
  if (!Collector.HasAsync || !HasWrite)
    return {};

  const AnalysisLimits Limits;
  CFG::BuildOptions Options;
  Options.setAllAlwaysAdd();
  std::unique_ptr<CFG> G = CFG::buildCFG(FD, Body, &Context, Options);
  if (!G || G->getNumBlockIDs() > Limits.MaxBlocks)
    return {};
  ParentMap PM(Body);
  const llvm::DenseSet<const Stmt *> InCFG = flow::cfgStatements(*G);
  llvm::DenseMap<const Stmt *, llvm::SmallVector<const Access *, 2>> At;
  for (const auto &[S, A] : Collector.Accesses)
    if (const Stmt *Anchor = flow::cfgAnchor(S, InCFG, PM))
      At[Anchor].push_back(&A);

  const SourceManager &SM = Context.getSourceManager();
  std::vector<Finding> Found;
  auto Transfer = [&](const CFGBlock &B, PathState S, bool Report) {
    if (!S.Reachable)
      return S;
    for (const CFGElement &El : B) {
      auto CS = El.getAs<CFGStmt>();
      if (!CS)
        continue;
      auto It = At.find(CS->getStmt());
      if (It == At.end())
        continue;
      // Within one element, in source order (the order of evaluation the analysis assumes).
      llvm::SmallVector<const Access *, 2> Ordered(It->second.begin(), It->second.end());
      std::stable_sort(Ordered.begin(), Ordered.end(), [&](const Access *X, const Access *Y) {
        return SM.isBeforeInTranslationUnit(X->Loc, Y->Loc);
      });
      for (const Access *A : Ordered) {
        switch (A->Kind) {
        case AccessKind::GenericWrite:
          if (!S.MayWritten || SM.isBeforeInTranslationUnit(A->Loc, S.WrittenAt))
            S.WrittenAt = A->Loc;
          S.MayWritten = true;
          break;
        case AccessKind::Fence:
          S.MayWritten = false;
          S.WrittenAt = SourceLocation();
          break;
        case AccessKind::AsyncRead:
        case AccessKind::AsyncWrite:
          if (Report && S.MayWritten) {
            Finding F;
            F.Kind = FindingKind::UnfencedAsyncProxy;
            F.Loc = A->Loc;
            F.CallName = A->Callee->getNameAsString();
            F.OriginLoc = S.WrittenAt;
            F.AsyncWrite = A->Kind == AccessKind::AsyncWrite;
            Found.push_back(std::move(F));
          }
          break;
        }
      }
    }
    return S;
  };

  // Forward may-analysis to a fixpoint over the blocks in id order (reverse of clang's
  // numbering is close to reverse post-order), then one reporting replay.
  std::vector<PathState> Out(G->getNumBlockIDs());
  auto In = [&](const CFGBlock &B) {
    PathState S;
    if (&B == &G->getEntry()) {
      S.Reachable = true;
      return S;
    }
    for (const CFGBlock *Pred : B.preds()) {
      if (!Pred || !Out[Pred->getBlockID()].Reachable)
        continue;
      const PathState &P = Out[Pred->getBlockID()];
      S.Reachable = true;
      if (P.MayWritten && (!S.MayWritten || SM.isBeforeInTranslationUnit(P.WrittenAt, S.WrittenAt)))
        S.WrittenAt = P.WrittenAt;
      S.MayWritten |= P.MayWritten;
    }
    return S;
  };
  bool Changed = true;
  for (unsigned Round = 0; Changed && Round < Limits.MaxVisitsPerBlock; ++Round) {
    Changed = false;
    for (auto It = G->rbegin(); It != G->rend(); ++It) {
      const CFGBlock *B = *It;
      PathState New = Transfer(*B, In(*B), false);
      if (!(New == Out[B->getBlockID()])) {
        Out[B->getBlockID()] = New;
        Changed = true;
      }
    }
  }
  if (Changed)
    return {}; // no fixpoint: say nothing
  for (const CFGBlock *B : *G)
    Transfer(*B, In(*B), true);
  std::sort(Found.begin(), Found.end(), [&](const Finding &A, const Finding &B) {
    return SM.isBeforeInTranslationUnit(A.Loc, B.Loc);
  });
  Found.erase(std::unique(Found.begin(), Found.end(),
                          [](const Finding &A, const Finding &B) { return A.Loc == B.Loc; }),
              Found.end());
  return Found;
}

} // namespace linpipe::tidy
