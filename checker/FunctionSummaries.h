//===--- FunctionSummaries.h - linpipe clang-tidy checks --------*- C++ -*-===//
//
// What a helper does to a stage it receives by reference, when the translation unit has its
// body: released (or moved on) on every path, on some paths only, passed where the analysis
// does not follow, or borrowed; and whether it signals or arrives on the stage's barrier, and
// whether its release needs a signal from the caller. For a stage given by value or rvalue
// reference (the callee's to release), only whether the callee arrives on it. A call site applies the summary as if
// the helper's effect happened there, so `finish(stage); stage.release();` is a double
// release and `signal(stage); stage.release_without_signal();` is signalled.
//
// Summaries are computed on demand, cached per translation unit, and bounded: callees in
// system headers or in a module's BMI, virtual members, callees whose own summaries nest
// deeper than MaxDepth, and recursive calls stay opaque (an opaque callee borrows the stage,
// as before).
//
//===----------------------------------------------------------------------===//

#ifndef LINPIPE_CHECKER_FUNCTIONSUMMARIES_H
#define LINPIPE_CHECKER_FUNCTIONSUMMARIES_H

#include "LinearTypeModel.h"
#include "clang/AST/ASTContext.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include <optional>
#include <utility>

namespace linpipe::tidy {

struct ParamSummary {
  enum Outcome {
    Borrowed,  // still the caller's on every path
    Consumed,  // released or moved on, on every path that returns
    MayConsume, // released or moved on some paths only
    PassedOn,  // stored or handed off where the analysis does not follow it
  } Result = Borrowed;
  bool Signals = false;     // signals the barrier (mbar(), arrive()) on some path
  bool Arrives = false;     // arrives (arrive(), release()) on some path
  bool NeedsSignal = false; // releases without a signal of its own: the caller must signal
};

class SummaryCache {
public:
  static constexpr unsigned MaxDepth = 4;

  SummaryCache(LinearTypeModel &Model, clang::ASTContext &Context)
      : Model(Model), Context(Context) {}

  /// The summary of what \p Callee does to its parameter \p ParamIdx (a reference to a linear
  /// class), or nothing when the callee stays opaque.
  std::optional<ParamSummary> lookup(const clang::FunctionDecl *Callee, unsigned ParamIdx);

private:
  std::optional<ParamSummary> compute(const clang::FunctionDecl *Def, unsigned ParamIdx);

  LinearTypeModel &Model;
  clang::ASTContext &Context;
  llvm::DenseMap<std::pair<const clang::FunctionDecl *, unsigned>, std::optional<ParamSummary>>
      Cache;
  llvm::DenseSet<const clang::FunctionDecl *> InProgress;
  unsigned Depth = 0;
};

} // namespace linpipe::tidy

#endif // LINPIPE_CHECKER_FUNCTIONSUMMARIES_H
