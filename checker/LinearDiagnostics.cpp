//===--- LinearDiagnostics.cpp - linpipe clang-tidy checks ----------------===//
//
// All wording of linpipe-linear-stage and linpipe-stage-protocol: lower case, no
// final period, the value's name quoted, the fault first; notes at the acquisition,
// at the exit taken or the earlier event, and one naming the fix.
//
//===----------------------------------------------------------------------===//

#include "LinearDiagnostics.h"
#include "LinearTypeModel.h"
#include "ClangTidyCheck.h"

using namespace clang;

namespace linpipe::tidy {

bool isProtocolFinding(FindingKind Kind) {
  return Kind == FindingKind::MissingSignal || Kind == FindingKind::DoubleArrival ||
         Kind == FindingKind::ScopeNeverSignalled || Kind == FindingKind::UnfencedAsyncProxy;
}

static unsigned index(ExitKind K) { return static_cast<unsigned>(K); }
// A finding is a warning, or an error where the check's FindingSeverity option says so.
static DiagnosticIDs::Level level(const Finding &F) {
  return F.AsError ? DiagnosticIDs::Error : DiagnosticIDs::Warning;
}
static unsigned index(EscapeKind K) { return static_cast<unsigned>(K); }
static unsigned index(UseAfterKind K) { return static_cast<unsigned>(K); }

// The name holds a stage another name acquired: say where the two traded places.
static void emitSwapNote(clang::tidy::ClangTidyCheck &Check, const Finding &F) {
  if (F.SwappedLoc.isValid())
    Check.diag(F.SwappedLoc, "'%0' received this stage from another variable through the swap here",
               DiagnosticIDs::Note)
        << F.Name;
}

// Where the path leaves the value's scope (or overwrites it).
static void emitExitNote(clang::tidy::ClangTidyCheck &Check, const Finding &F) {
  Check.diag(F.Loc,
             "%select{the scope of '%1' ends here|'return' leaves the scope here|'break' leaves "
             "the scope here|'continue' leaves the scope here|'goto' leaves the scope here|the "
             "function ends here|the assignment overwrites '%1' here}0",
             DiagnosticIDs::Note)
      << index(F.Exit) << F.Name;
}

static void emitNotReleased(clang::tidy::ClangTidyCheck &Check, LinearTypeModel &Model,
                            const Finding &F) {
  const bool Overwritten = F.Exit == ExitKind::Assignment;
  const unsigned PathVariant = Overwritten ? 2 : (F.Definite ? 0 : 1);
  const unsigned WhatVariant = F.IsParameter ? 1 + static_cast<unsigned>(F.Received) : 0;
  Check.diag(F.Loc, "%select{'%0' is not released|by-value parameter '%0' is neither released "
                    "nor moved|rvalue-reference parameter '%0' is neither released nor moved (its "
                    "caller handed it over)|captured '%0' is neither released nor moved by the "
                    "closure}1 %select{on this path|on some paths reaching this point|before it is "
                    "overwritten}2", level(F))
      << F.Name << WhatVariant << PathVariant;
  if (F.AcquiredLoc.isValid())
    Check.diag(F.AcquiredLoc, "%select{'%0' acquired here|'%0' received here|'%0' captured here}1",
               DiagnosticIDs::Note)
        << F.Name << (F.IsParameter ? (F.Received == ReceivedAs::InitCapture ? 2 : 1) : 0);
  emitSwapNote(Check, F);
  emitExitNote(Check, F);
  const unsigned FixVariant = Overwritten ? 2 : (F.IsParameter ? 1 : 0);
  Check.diag(F.Loc,
             "%select{call %0 before leaving the scope|call %0, or move '%1' on, before leaving "
             "the function|call %0 before assigning a new value}2",
             DiagnosticIDs::Note)
      << Model.consumeNames(F.Record) << F.Name << FixVariant;
}

static void emitUseAfter(clang::tidy::ClangTidyCheck &Check, const Finding &F) {
  Check.diag(F.Loc, "'%0' %select{used after it was released|used after it was moved|released "
                    "twice|released after it was moved}1", level(F))
      << F.Name << index(F.UseAfter);
  const bool WasMoved = F.UseAfter == UseAfterKind::UsedAfterMove ||
                        F.UseAfter == UseAfterKind::ReleasedAfterMove;
  if (F.OriginLoc.isValid())
    Check.diag(F.OriginLoc, "'%0' %select{released|moved}1 here%select{| in an earlier loop "
                            "iteration}2",
               DiagnosticIDs::Note)
        << F.Name << WasMoved << F.OriginInEarlierIteration;
  emitSwapNote(Check, F);
}

static void emitDiscarded(clang::tidy::ClangTidyCheck &Check, LinearTypeModel &Model,
                          const Finding &F) {
  Check.diag(F.Loc, "linear value %select{returned by|created by}0 '%1' is %select{discarded|used "
                    "and then discarded}2 without being released", level(F))
      << F.MadeByConstructor << F.Name << F.UsedBeforeDiscard;
  Check.diag(F.Loc, "bind it to a variable and call %0 on every path", DiagnosticIDs::Note)
      << Model.consumeNames(F.Record);
}

static void emitEscape(clang::tidy::ClangTidyCheck &Check, LinearTypeModel &Model,
                       const Finding &F) {
  Check.diag(F.Loc, "%select{'%0'|the value returned by '%0'}1 escapes %select{into a "
                    "member|into an array element|into a standard container or wrapper|into a "
                    "heap object|through its address|through a by-reference lambda "
                    "capture|through a reference binding|into storage the analysis does not "
                    "track}2 and its release can no longer be checked", level(F))
      << F.Name << F.IsTemporary << index(F.Escape);
  Check.diag(F.Loc, "release it first, or hand it over on purpose through a function annotated "
                    "'%0' such as linpipe::hand_off()",
             DiagnosticIDs::Note)
      << Model.annotations().HandOff;
}

static void emitMissingSignal(clang::tidy::ClangTidyCheck &Check, LinearTypeModel &Model,
                              const Finding &F) {
  Check.diag(F.Loc, "%select{'%0'|the value returned by '%0'}1 is released by '%2' but no path "
                    "before it signals its barrier", level(F))
      << F.Name << F.IsTemporary << F.CallName;
  if (F.AcquiredLoc.isValid())
    Check.diag(F.AcquiredLoc, "'%0' acquired here", DiagnosticIDs::Note) << F.Name;
  const std::string Signals = Model.signalNames(F.Record);
  const std::string Arriving = Model.consumeNamesWhere(F.Record, /*Arrives=*/true, false);
  Check.diag(F.Loc, "%select{signal its barrier|call %1}0 before '%2'%select{|, or release it "
                    "with %3, which arrives}4",
             DiagnosticIDs::Note)
      << !Signals.empty() << Signals << F.CallName << Arriving << !Arriving.empty();
}

static void emitScopeNeverSignalled(clang::tidy::ClangTidyCheck &Check, const Finding &F) {
  Check.diag(F.Loc, "scope '%0' ends its claim without arriving, and no path before this point "
                    "signals its barrier", level(F))
      << F.Name;
  if (F.AcquiredLoc.isValid())
    Check.diag(F.AcquiredLoc, "'%0' acquired here", DiagnosticIDs::Note) << F.Name;
  emitExitNote(Check, F);
  Check.diag(F.Loc, "call '%0.arrive()' (from the lane that signals) before the scope ends, or "
                    "use consume(), whose end arrives",
             DiagnosticIDs::Note)
      << F.Name;
}

static void emitUnfencedAsyncProxy(clang::tidy::ClangTidyCheck &Check, const Finding &F) {
  Check.diag(F.Loc, "'%0' %select{reads|overwrites}1 slot memory that generic stores wrote on a "
                    "path to it with no fence.proxy.async between: the copy engine may see stale "
                    "bytes", level(F))
      << F.CallName << F.AsyncWrite;
  if (F.OriginLoc.isValid())
    Check.diag(F.OriginLoc, "written by generic stores here", DiagnosticIDs::Note);
  Check.diag(F.Loc, "call linpipe::ptx::fence_proxy_async_shared_cta() after the writes (in every "
                    "writing thread, then sync them) and before '%0'%select{, or store through "
                    "linpipe::StoreEpilogue, which does both|}1",
             DiagnosticIDs::Note)
      << F.CallName << F.AsyncWrite;
}

static void emitDoubleArrival(clang::tidy::ClangTidyCheck &Check, LinearTypeModel &Model,
                              const Finding &F) {
  Check.diag(F.Loc, "'%0' arrives on its barrier twice: '%1' arrives again after an earlier "
                    "arrival", level(F))
      << F.Name << F.CallName;
  if (F.OriginLoc.isValid())
    Check.diag(F.OriginLoc, "first arrival here", DiagnosticIDs::Note);
  const std::string Silent = Model.consumeNamesWhere(F.Record, false, /*NeedsSignal=*/true);
  Check.diag(F.Loc, "%select{remove one of the arrivals|after an explicit arrival, end with %1, "
                    "which does not arrive}0",
             DiagnosticIDs::Note)
      << !Silent.empty() << Silent;
}

void emitFinding(clang::tidy::ClangTidyCheck &Check, LinearTypeModel &Model, const Finding &F) {
  switch (F.Kind) {
  case FindingKind::NotReleased:
    return emitNotReleased(Check, Model, F);
  case FindingKind::UseAfter:
    return emitUseAfter(Check, F);
  case FindingKind::Discarded:
    return emitDiscarded(Check, Model, F);
  case FindingKind::Escape:
    return emitEscape(Check, Model, F);
  case FindingKind::MissingSignal:
    return emitMissingSignal(Check, Model, F);
  case FindingKind::DoubleArrival:
    return emitDoubleArrival(Check, Model, F);
  case FindingKind::ScopeNeverSignalled:
    return emitScopeNeverSignalled(Check, F);
  case FindingKind::UnfencedAsyncProxy:
    return emitUnfencedAsyncProxy(Check, F);
  }
}

} // namespace linpipe::tidy
