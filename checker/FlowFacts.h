//===--- FlowFacts.h - linpipe clang-tidy checks --------------------------===//
//
// The vocabulary the flow analysis shares between its parts: the values a function
// owns (TrackedValue), what happens to them (Event), where one value goes (Flow), and
// the AST helpers each part asks (is this std::move, which argument is this, ...).
//
//===----------------------------------------------------------------------===//

#ifndef LINPIPE_CHECKER_FLOWFACTS_H
#define LINPIPE_CHECKER_FLOWFACTS_H

#include "LinearDiagnostics.h"
#include "LinearTypeModel.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMap.h"
#include "llvm/ADT/DenseSet.h"
#include "clang/Analysis/CFG.h"
#include "clang/Basic/SourceLocation.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/StringRef.h"
#include <initializer_list>
#include <optional>
#include <string>
#include <utility>

namespace linpipe::tidy::flow {

using namespace clang;

bool isInStd(const Decl *D);
bool isStdNamed(const NamedDecl *D, std::initializer_list<llvm::StringRef> Names);
// std::move and friends only change the value category: the value flows on.
bool isMoveLike(const FunctionDecl *FD);
bool isAddressOf(const FunctionDecl *FD);
// std::exchange(obj, value): a transfer between two names, not an escape: obj's old value
// leaves as the result, value moves into obj.
bool isExchange(const FunctionDecl *FD);
// std::swap(a, b), std::ranges::swap(a, b): two names trade what they hold. The two
// operands, if \p CE is such a call.
std::optional<std::pair<const Expr *, const Expr *>> swapOperands(const CallExpr *CE);
// A std callee that stores what it is given on the heap rather than in a container.
bool isHeapSink(const FunctionDecl *FD);
// std::pair, std::tuple and their makers: a stage placed in one travels with it.
bool isStdAggregate(const FunctionDecl *FD);
const Expr *skipParensAndCasts(const Expr *E);
// The declaration a moved or copied expression names, through std::move and casts.
const ValueDecl *sourceDecl(const Expr *E);
QualType paramTypeAt(const CallExpr *CE, const FunctionDecl *FD, unsigned ArgIdx);
// The parameter of \p FD that argument \p ArgIdx of \p CE initialises, if any.
std::optional<unsigned> paramIndexAt(const CallExpr *CE, const FunctionDecl *FD, unsigned ArgIdx);
// std::invoke(f, args...), std::invoke_r: a call of f, not storage.
bool isInvokeLike(const FunctionDecl *FD);
std::optional<unsigned> argIndex(const CallExpr *CE, const Expr *Arg);
std::optional<unsigned> argIndex(const CXXConstructExpr *CE, const Expr *Arg);
std::string calleeName(const CallExpr *CE);
// Where a path leaves the scope of a value whose destructor or lifetime end
// \p Trigger caused.
std::pair<ExitKind, SourceLocation> exitOf(const Stmt *Trigger, SourceLocation Fallback);
bool endsInThrow(const CFGBlock &B);
// The statements \p G has as elements, and the nearest of them enclosing \p S (null if none):
// where an event found in the AST happens along the CFG.
llvm::DenseSet<const Stmt *> cfgStatements(const CFG &G);
const Stmt *cfgAnchor(const Stmt *S, const llvm::DenseSet<const Stmt *> &InCFG,
                      const ParentMap &PM);

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
  // A reference parameter followed only to summarise what the function does to it (see
  // FunctionSummaries.h): it starts live and unsignalled, and nothing about it is reported.
  bool Summarised = false;
  // A structured binding: the decomposed object whose declaration acquires it and whose end
  // of life ends it.
  const VarDecl *Owner = nullptr;
  // A consume_explicit()-style scope: no obligation to release (its end does), but some path
  // must signal through it before it ends.
  bool IsSignalScope = false;
};

//===----------------------------------------------------------------------===//
// Events
//===----------------------------------------------------------------------===//

enum class EventKind { Use, MethodCall, Move, Escape, HandOff, Assign, Swap, Report };

struct Event {
  EventKind Kind = EventKind::Use;
  unsigned Value = 0;
  SourceLocation Loc;
  const FunctionDecl *Callee = nullptr;
  MethodRole Role;
  EscapeKind Escape = EscapeKind::Member;
  InitKind AssignInit = InitKind::Unknown; // Assign: what the new value is
  int AssignSource = -1;
  unsigned SwapWith = 0; // Swap: the tracked value this one trades states with
  bool BySwap = false;   // Escape: traded into untracked storage (not a use of the value)
  bool ArrivesAfter = false; // Move: the callee arrives on the stage when it releases it
  Finding Report; // Report: a finding about a temporary, emitted if reached
};

// Where one linear value goes, as decided by its context.
struct Flow {
  // ExchangeTarget: the old value moves out (the call's result), then the new one is
  // assigned in (std::exchange's first argument).
  // SwapWith: trades states with another tracked value (std::swap); Covered: this
  // reference's effect is the other argument's SwapWith (or a self-swap: none).
  enum Kind {
    Use, MethodCall, Moved, Escape, HandOff, AssignTarget, ExchangeTarget, SwapWith, Covered,
    Discard
  } K = Use;
  const Stmt *Anchor = nullptr; // where it happens (a CFG element, or below one)
  SourceLocation Loc;
  const FunctionDecl *Callee = nullptr;
  MethodRole Role;
  EscapeKind EscapeTo = EscapeKind::Member;
  bool UsedBeforeDiscard = false;
  InitKind AssignInit = InitKind::Unknown;
  int AssignSource = -1;
  int SwapOther = -1; // SwapWith: the other tracked value
  bool BySwap = false; // Escape: a swap with untracked storage
  bool ArrivesAfter = false; // Moved: into a callee that arrives when it releases it
  // Moved into a new object (a move construction) that is then dropped.
  const CXXConstructExpr *DroppedObject = nullptr;
};

} // namespace linpipe::tidy::flow

#endif // LINPIPE_CHECKER_FLOWFACTS_H
