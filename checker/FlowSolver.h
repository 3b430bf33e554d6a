//===--- FlowSolver.h - linpipe clang-tidy checks -------------------------===//
//
// The forward may-dataflow over clang's CFG: each value's possible states (a set, since
// paths merge) to a fixpoint, then one replay per block that reports; and finalize(),
// which sorts the findings and keeps one per fault.
//
//===----------------------------------------------------------------------===//

#ifndef LINPIPE_CHECKER_FLOWSOLVER_H
#define LINPIPE_CHECKER_FLOWSOLVER_H

#include "FlowFacts.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"
#include <vector>

namespace linpipe::tidy::flow {


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
  // A signalling use or an arrival on some path, ever (a consume does not reset them): what a
  // helper did to its parameter, for its summary.
  bool EverSignalled = false;
  bool EverArrived = false;
  SourceLocation AcquiredAt, ReleasedAt, MovedAt, ArrivedAt;
  SourceLocation SwappedAt; // where std::swap brought the stage into this name

  bool operator==(const ValueState &O) const {
    return Bits == O.Bits && MaySignalled == O.MaySignalled && MayArrived == O.MayArrived &&
           EverSignalled == O.EverSignalled && EverArrived == O.EverArrived &&
           AcquiredAt == O.AcquiredAt && ReleasedAt == O.ReleasedAt && MovedAt == O.MovedAt &&
           ArrivedAt == O.ArrivedAt && SwappedAt == O.SwappedAt;
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
  /// After solve(): value \p V's states joined over the paths that return to the caller
  /// (not those ending in a throw or a [[noreturn]] call); unreachable if none does.
  FlowState exitState() const;

private:
  FlowState entryState() const;
  FlowState inState(const CFGBlock &B) const;
  FlowState transfer(const CFGBlock &B, FlowState S, std::vector<RawFinding> *Out) const;
  void applyStmt(const Stmt *S, FlowState &State, std::vector<RawFinding> *Out) const;
  void applyEvent(const Event &E, FlowState &State, std::vector<RawFinding> *Out) const;
  // A finding of this kind about the value an event touches, located at the event.
  RawFinding findingAt(FindingKind Kind, const Event &E) const;
  RawFinding findingAtExit(FindingKind Kind, unsigned V, const ValueState &VS, ExitKind Exit,
                           SourceLocation Loc) const;
  void acquire(unsigned V, InitKind Init, int Source, SourceLocation At,
               FlowState &State) const;
  void endLifetime(const VarDecl *VD, const Stmt *Trigger, FlowState &State,
                   std::vector<RawFinding> *Out) const;
  void checkParametersAtExit(std::vector<RawFinding> &Out) const;
  bool reportUseAfter(unsigned V, const ValueState &VS, bool IsConsume, SourceLocation Loc,
                      std::vector<RawFinding> *Out) const;
  void reportNotReleased(unsigned V, const ValueState &VS, ExitKind Exit, SourceLocation Loc,
                         std::vector<RawFinding> *Out) const;
  void reportScopeNeverSignalled(unsigned V, const ValueState &VS, ExitKind Exit,
                                 SourceLocation Loc, std::vector<RawFinding> *Out) const;
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

// Sorted by location; one report per identical finding, and only the first use after each
// release or move.
std::vector<Finding> finalize(std::vector<RawFinding> Raw, const SourceManager &SM);

} // namespace linpipe::tidy::flow

#endif // LINPIPE_CHECKER_FLOWSOLVER_H
