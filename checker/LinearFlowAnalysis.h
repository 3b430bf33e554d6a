//===--- LinearFlowAnalysis.h - linpipe clang-tidy checks -------*- C++ -*-===//
//
// The flow analysis behind linpipe-linear-stage and linpipe-stage-protocol. For one
// function it
//   1. collects the linear values it owns: by-value parameters and local variables
//      of a linear class;
//   2. classifies every evaluated reference to them, and every temporary linear
//      value, as an event: acquire, use, consume (with arrive/signal roles), move,
//      escape, hand-off, assignment;
//   3. runs a forward may-dataflow over clang's CFG (implicit destructors and
//      lifetime ends mark every scope exit: return, break, continue, goto, end of
//      block) to a fixpoint, then replays each block once to report.
// It is flow-sensitive but not path-sensitive: a value released on one branch and
// not on the other is reported where the branches meet or leave the scope.
//
//===----------------------------------------------------------------------===//

#ifndef LINPIPE_CHECKER_LINEARFLOWANALYSIS_H
#define LINPIPE_CHECKER_LINEARFLOWANALYSIS_H

#include "LinearDiagnostics.h"
#include "LinearTypeModel.h"
#include "clang/AST/ASTContext.h"
#include <optional>
#include <vector>

namespace linpipe::tidy {

struct AnalysisLimits {
  unsigned MaxBlocks = 20000;        // larger functions are skipped
  unsigned MaxTrackedValues = 512;   // so are functions with more linear values
  unsigned MaxVisitsPerBlock = 64;   // the fixpoint gives up (quietly) past this
};

class SummaryCache;
struct ParamSummary;

class LinearFlowAnalysis {
public:
  /// \p Summaries: what helpers with bodies in the translation unit do to the stages they
  /// are given (null: every callee is opaque).
  LinearFlowAnalysis(LinearTypeModel &Model, clang::ASTContext &Context, bool ReportEscapes,
                     SummaryCache *Summaries = nullptr, AnalysisLimits Limits = {})
      : Model(Model), Context(Context), ReportEscapes(ReportEscapes), Summaries(Summaries),
        Limits(Limits) {}

  /// The findings in \p FD's body, sorted by location. Empty when the function has
  /// no linear values, or when the analysis gave up (too large, no fixpoint).
  std::vector<Finding> analyze(const clang::FunctionDecl *FD);

  /// What \p FD does to its reference parameter \p ParamIdx (see FunctionSummaries.h);
  /// nothing when the parameter is not a reference to a linear class or the analysis gave up.
  std::optional<ParamSummary> summarize(const clang::FunctionDecl *FD, unsigned ParamIdx);

private:
  template <class Finish>
  auto run(const clang::FunctionDecl *FD, const clang::ParmVarDecl *Summarised, Finish &&Done)
      -> decltype(Done(nullptr, nullptr));

  LinearTypeModel &Model;
  clang::ASTContext &Context;
  bool ReportEscapes;
  SummaryCache *Summaries;
  AnalysisLimits Limits;
};

} // namespace linpipe::tidy

#endif // LINPIPE_CHECKER_LINEARFLOWANALYSIS_H
