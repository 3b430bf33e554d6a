//===--- LinearDiagnostics.h - linpipe clang-tidy checks --------*- C++ -*-===//
//
// A finding of the linearity flow analysis, and the one function that words it.
//
//===----------------------------------------------------------------------===//

#ifndef LINPIPE_CHECKER_LINEARDIAGNOSTICS_H
#define LINPIPE_CHECKER_LINEARDIAGNOSTICS_H

#include "clang/AST/DeclCXX.h"
#include "clang/Basic/SourceLocation.h"
#include <string>

namespace clang::tidy {
class ClangTidyCheck;
} // namespace clang::tidy

namespace linpipe::tidy {

class LinearTypeModel;

enum class FindingKind {
  NotReleased, // linpipe-linear-stage: a live value reaches an exit or is overwritten
  UseAfter,    // linpipe-linear-stage: used or released after a release or move
  Discarded,   // linpipe-linear-stage: a temporary linear value dropped
  Escape,      // linpipe-linear-stage: stored where the analysis cannot follow it
  MissingSignal, // linpipe-stage-protocol: needs_signal consume with no signal before it
  DoubleArrival, // linpipe-stage-protocol: an arriving consume after an arrival
  ScopeNeverSignalled, // linpipe-stage-protocol: a signal scope ends with no signal before it
  UnfencedAsyncProxy, // linpipe-stage-protocol: generic slot writes, then a bulk/TMA access
};

/// How a path leaves the scope of a live value. The order is the %select order.
enum class ExitKind { EndOfScope, Return, Break, Continue, Goto, EndOfFunction, Assignment };

/// Where a value escapes to. The order is the %select order.
enum class EscapeKind {
  Member,
  ArrayElement,
  Container,
  Heap,
  AddressTaken,
  RefCapture,
  RefBinding,
  Untracked,
};

/// How a function receives a value it must consume; the order is the %select order (from 1).
enum class ReceivedAs {
  ByValue,           // a by-value parameter
  ByRvalueReference, // a `Linear &&` parameter: the caller handed it over
  InitCapture,       // a lambda's init-capture, consumed by its body
};

/// The order is the %select order.
enum class UseAfterKind { UsedAfterRelease, UsedAfterMove, ReleasedTwice, ReleasedAfterMove };

struct Finding {
  FindingKind Kind = FindingKind::NotReleased;
  clang::SourceLocation Loc;      // the faulty point
  std::string Name;               // the variable, or the callee that made a temporary
  bool IsTemporary = false;       // Name is a callee: the value has no name
  bool IsParameter = false;       // NotReleased: received on entry (see Received)
  ReceivedAs Received = ReceivedAs::ByValue;
  bool Definite = true;           // NotReleased: live on every path to Loc
  ExitKind Exit = ExitKind::EndOfScope;
  clang::SourceLocation AcquiredLoc;
  clang::SourceLocation OriginLoc; // the release or move (UseAfter), the first arrival
  bool OriginInEarlierIteration = false;
  clang::SourceLocation SwappedLoc; // UseAfter, NotReleased: std::swap brought the stage in
  UseAfterKind UseAfter = UseAfterKind::UsedAfterRelease;
  EscapeKind Escape = EscapeKind::Member;
  bool UsedBeforeDiscard = false; // Discarded: a member was called on it first
  bool MadeByConstructor = false; // Discarded: Name is a class, not a function
  std::string CallName;           // MissingSignal, DoubleArrival: the consuming call
  bool AsyncWrite = false;        // UnfencedAsyncProxy: a load into the slot (not a store from it)
  const clang::CXXRecordDecl *Record = nullptr; // the linear class, for the fix note
  bool AsError = false; // reported at error severity (the check's FindingSeverity: error)
};

/// Whether \p Kind belongs to linpipe-stage-protocol (else linpipe-linear-stage).
bool isProtocolFinding(FindingKind Kind);

/// Emits \p F with its notes. All of the checks' wording lives here.
void emitFinding(clang::tidy::ClangTidyCheck &Check, LinearTypeModel &Model, const Finding &F);

} // namespace linpipe::tidy

#endif // LINPIPE_CHECKER_LINEARDIAGNOSTICS_H
