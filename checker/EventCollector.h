//===--- EventCollector.h - linpipe clang-tidy checks ---------------------===//
//
// The values one function owns (by-value and rvalue-reference parameters, init-captures,
// locals of a linear class) and the events on them, keyed by the statement they happen at.
//
//===----------------------------------------------------------------------===//

#ifndef LINPIPE_CHECKER_EVENTCOLLECTOR_H
#define LINPIPE_CHECKER_EVENTCOLLECTOR_H

#include "FlowClassifier.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include <vector>

namespace linpipe::tidy::flow {


// Walks one function's own code: not the bodies of lambdas or local classes (they
// are functions of their own), not unevaluated operands.
class EventCollector : public RecursiveASTVisitor<EventCollector> {
  using Base = RecursiveASTVisitor<EventCollector>;

public:
  EventCollector(LinearTypeModel &Model, bool ReportEscapes, const ParentMap &PM,
                 llvm::SmallPtrSetImpl<const Stmt *> &CtorInitRoots,
                 SummaryCache *Summaries = nullptr)
      : Model(Model), ReportEscapes(ReportEscapes), PM(PM), CtorInitRoots(CtorInitRoots),
        Classifier(Model, PM, Index, CtorInitRoots, Summaries) {}

  void addParameter(const ParmVarDecl *P);
  /// A reference parameter followed only for the function's summary (FunctionSummaries.h).
  void addSummarisedParameter(const ParmVarDecl *P);
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
  void addBindings(const DecompositionDecl *DD);
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

} // namespace linpipe::tidy::flow

#endif // LINPIPE_CHECKER_EVENTCOLLECTOR_H
