//===--- FlowClassifier.h - linpipe clang-tidy checks ---------------------===//
//
// Where one linear value goes, decided by the context of one reference to it (or of
// one temporary): used, consumed through a member call, moved on, escaped, handed off,
// assigned over.
//
//===----------------------------------------------------------------------===//

#ifndef LINPIPE_CHECKER_FLOWCLASSIFIER_H
#define LINPIPE_CHECKER_FLOWCLASSIFIER_H

#include "FlowFacts.h"
#include "FunctionSummaries.h"
#include "clang/AST/ParentMap.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"

namespace linpipe::tidy::flow {


class FlowClassifier {
public:
  FlowClassifier(LinearTypeModel &Model, const ParentMap &PM,
                 const llvm::DenseMap<const Decl *, unsigned> &Index,
                 const llvm::SmallPtrSetImpl<const Stmt *> &CtorInitRoots,
                 SummaryCache *Summaries = nullptr)
      : Model(Model), PM(PM), Index(Index), CtorInitRoots(CtorInitRoots),
        Summaries(Summaries) {}

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
  Flow fromCall(const CallExpr *CE, const Expr *Cur, bool Prvalue);
  Flow fromConstruct(const CXXConstructExpr *CCE, const Expr *Cur, bool Prvalue,
                     unsigned Depth);
  Flow fromMember(const MemberExpr *ME, const Expr *Cur, bool Prvalue) const;
  Flow fromDeclStmt(const DeclStmt *DS, const Expr *Cur, bool Prvalue) const;
  Flow fromLambda(const LambdaExpr *L, const Expr *Cur, bool Prvalue) const;
  Flow assignedInto(const Expr *LHS, const CallExpr *Call, const Expr *Source,
                    SourceLocation Loc) const;
  Flow swapped(const CallExpr *CE, std::pair<const Expr *, const Expr *> Operands,
               bool IsSecond) const;
  Flow movedIntoNewObject(const CXXConstructExpr *CCE, unsigned Depth);
  std::optional<Flow> carriedByAggregate(const Expr *Aggregate, unsigned Depth);
  Flow invoked(const CallExpr *CE, unsigned ArgIdx, const Expr *Cur, bool Prvalue) const;
  // A stage lent by reference to a callee the summaries can see into; nothing if opaque.
  std::optional<Flow> lentTo(const CallExpr *CE, const FunctionDecl *FD, unsigned ArgIdx,
                             const Expr *Cur) const;

  LinearTypeModel &Model;
  const ParentMap &PM;
  const llvm::DenseMap<const Decl *, unsigned> &Index;
  const llvm::SmallPtrSetImpl<const Stmt *> &CtorInitRoots;
  SummaryCache *Summaries;
};

} // namespace linpipe::tidy::flow

#endif // LINPIPE_CHECKER_FLOWCLASSIFIER_H
