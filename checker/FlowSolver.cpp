//===--- FlowSolver.cpp - linpipe clang-tidy checks -----------------------===//
//
// See FlowSolver.h.
//
//===----------------------------------------------------------------------===//

#include "FlowSolver.h"
#include <algorithm>
#include <set>

namespace linpipe::tidy::flow {

FlowState Solver::entryState() const {
  FlowState S;
  S.Reachable = true;
  S.Values.resize(Values.size());
  for (unsigned V = 0; V < Values.size(); ++V) {
    if (!Values[V].IsParameter)
      continue;
    // The caller may have signalled a parameter already: assume it did (a summarised one
    // starts unsignalled, to learn whether the function signals it itself).
    S.Values[V].Bits = Live;
    S.Values[V].MaySignalled = !Values[V].Summarised;
    S.Values[V].AcquiredAt = Values[V].Decl->getLocation();
  }
  return S;
}

// Join: the union of possible states; for each remembered location, the earliest.
void Solver::join(FlowState &Into, const FlowState &From, const SourceManager &SM) {
  if (!From.Reachable)
    return;
  if (!Into.Reachable) {
    Into = From;
    return;
  }
  auto Earliest = [&](SourceLocation &A, SourceLocation B) {
    if (B.isValid() && (A.isInvalid() || SM.isBeforeInTranslationUnit(B, A)))
      A = B;
  };
  for (unsigned V = 0; V < Into.Values.size(); ++V) {
    ValueState &I = Into.Values[V];
    const ValueState &F = From.Values[V];
    I.Bits |= F.Bits;
    I.MaySignalled |= F.MaySignalled;
    I.MayArrived |= F.MayArrived;
    I.EverSignalled |= F.EverSignalled;
    I.EverArrived |= F.EverArrived;
    Earliest(I.AcquiredAt, F.AcquiredAt);
    Earliest(I.ReleasedAt, F.ReleasedAt);
    Earliest(I.MovedAt, F.MovedAt);
    Earliest(I.ArrivedAt, F.ArrivedAt);
    Earliest(I.SwappedAt, F.SwappedAt);
  }
}

// The block that dispatches a `try`'s exceptions to its handlers: with no exceptional edges in
// the CFG it has no predecessors, and its handlers would never be analysed.
static bool isHandlerDispatch(const CFGBlock &B) {
  return B.pred_empty() && isa_and_nonnull<CXXTryStmt>(B.getTerminatorStmt());
}

FlowState Solver::inState(const CFGBlock &B) const {
  if (&B == &G.getEntry())
    return entryState();
  if (isHandlerDispatch(B)) {
    // Handlers are analysed from here, for the values they create: what the function held
    // when something threw is not modelled (no exceptional edges), so every value starts
    // empty there rather than guessed live or released.
    FlowState S;
    S.Reachable = true;
    S.Values.resize(Values.size());
    return S;
  }
  FlowState S;
  S.Values.resize(Values.size());
  for (const CFGBlock *Pred : B.preds())
    if (Pred)
      join(S, Out[Pred->getBlockID()], SM);
  return S;
}

void Solver::acquire(unsigned V, InitKind Init, int Source, SourceLocation At,
                     FlowState &State) const {
  ValueState &VS = State.Values[V];
  ValueState Fresh;
  if (Init == InitKind::Empty) {
    VS = Fresh;
    return;
  }
  Fresh.Bits = Live;
  Fresh.AcquiredAt = At;
  if (Init == InitKind::FromTracked && Source >= 0) {
    Fresh.MaySignalled = State.Values[Source].MaySignalled;
    Fresh.MayArrived = State.Values[Source].MayArrived;
    Fresh.ArrivedAt = State.Values[Source].ArrivedAt;
  } else if (Init == InitKind::Unknown) {
    Fresh.MaySignalled = true;
  }
  VS = Fresh;
}

bool Solver::reportUseAfter(unsigned V, const ValueState &VS, bool IsConsume,
                            SourceLocation Loc, std::vector<RawFinding> *Out) const {
  if (!(VS.Bits & (Released | Moved)) || (VS.Bits & Untracked))
    return false;
  if (!Out)
    return true;
  const bool WasReleased = VS.Bits & Released;
  RawFinding R;
  R.Value = V;
  R.F.Kind = FindingKind::UseAfter;
  R.F.Loc = Loc;
  R.F.Name = Values[V].Name;
  R.F.Record = Values[V].Record;
  R.F.UseAfter = IsConsume ? (WasReleased ? UseAfterKind::ReleasedTwice
                                          : UseAfterKind::ReleasedAfterMove)
                           : (WasReleased ? UseAfterKind::UsedAfterRelease
                                          : UseAfterKind::UsedAfterMove);
  R.F.OriginLoc = WasReleased ? VS.ReleasedAt : VS.MovedAt;
  // The origin at or after the use in the source: reached again around a loop.
  R.F.OriginInEarlierIteration = Loc == R.F.OriginLoc || before(Loc, R.F.OriginLoc);
  if (before(R.F.OriginLoc, VS.SwappedAt))
    R.F.SwappedLoc = VS.SwappedAt;
  Out->push_back(std::move(R));
  return true;
}

// A finding of this kind about value V where a path leaves its scope.
RawFinding Solver::findingAtExit(FindingKind Kind, unsigned V, const ValueState &VS,
                                 ExitKind Exit, SourceLocation Loc) const {
  RawFinding R;
  R.Value = V;
  R.F.Kind = Kind;
  R.F.Loc = Loc;
  R.F.Name = Values[V].Name;
  R.F.Record = Values[V].Record;
  R.F.Exit = Exit;
  R.F.AcquiredLoc = VS.AcquiredAt;
  return R;
}

void Solver::reportNotReleased(unsigned V, const ValueState &VS, ExitKind Exit,
                               SourceLocation Loc, std::vector<RawFinding> *Out) const {
  if (!Out || !(VS.Bits & Live) || (VS.Bits & Untracked))
    return;
  RawFinding R = findingAtExit(FindingKind::NotReleased, V, VS, Exit, Loc);
  R.F.IsParameter = Values[V].IsParameter;
  R.F.Received = Values[V].Received;
  R.F.Definite = !(VS.Bits & (Empty | Released | Moved));
  R.F.SwappedLoc = VS.SwappedAt;
  Out->push_back(std::move(R));
}

void Solver::reportScopeNeverSignalled(unsigned V, const ValueState &VS, ExitKind Exit,
                                       SourceLocation Loc, std::vector<RawFinding> *Out) const {
  if (!Out || !(VS.Bits & Live) || VS.MaySignalled)
    return;
  Out->push_back(findingAtExit(FindingKind::ScopeNeverSignalled, V, VS, Exit, Loc));
}

RawFinding Solver::findingAt(FindingKind Kind, const Event &E) const {
  RawFinding R{{}, static_cast<int>(E.Value)};
  R.F.Kind = Kind;
  R.F.Loc = E.Loc;
  R.F.Name = Values[E.Value].Name;
  R.F.Record = Values[E.Value].Record;
  return R;
}

void Solver::applyEvent(const Event &E, FlowState &State, std::vector<RawFinding> *Out) const {
  if (E.Kind == EventKind::Report) {
    if (Out)
      Out->push_back({E.Report, -1});
    return;
  }
  ValueState &VS = State.Values[E.Value];
  const uint8_t Keep = VS.Bits & Untracked;
  if (Values[E.Value].IsSignalScope) {
    // A scope lent to a function the analysis cannot see into may be signalled there.
    VS.MaySignalled |= E.Kind != EventKind::MethodCall || E.Role.Signals;
    return;
  }
  switch (E.Kind) {
  case EventKind::Use:
    reportUseAfter(E.Value, VS, false, E.Loc, Out);
    return;
  case EventKind::MethodCall: {
    const bool WasLive = (VS.Bits & Live) && !(VS.Bits & Untracked);
    reportUseAfter(E.Value, VS, E.Role.Consume || E.Role.MayConsume, E.Loc, Out);
    if (WasLive && Out && E.Role.Consume && E.Role.NeedsSignal && !VS.MaySignalled) {
      RawFinding R = findingAt(FindingKind::MissingSignal, E);
      R.F.CallName = E.Callee->getNameAsString();
      R.F.AcquiredLoc = VS.AcquiredAt;
      Out->push_back(std::move(R));
    }
    if (WasLive && Out && E.Role.Consume && E.Role.Arrives && VS.MayArrived) {
      RawFinding R = findingAt(FindingKind::DoubleArrival, E);
      R.F.CallName = E.Callee->getNameAsString();
      R.F.OriginLoc = VS.ArrivedAt;
      Out->push_back(std::move(R));
    }
    VS.EverSignalled |= E.Role.Signals;
    VS.EverArrived |= E.Role.Arrives;
    if (E.Role.Consume) {
      VS.Bits = Released | Keep;
      VS.ReleasedAt = E.Loc;
      VS.MayArrived = false;
      return;
    }
    VS.MaySignalled |= E.Role.Signals;
    if (E.Role.Arrives) {
      VS.MayArrived = true;
      VS.ArrivedAt = E.Loc;
    }
    if (E.Role.MayConsume && WasLive) {
      // Released on some of the callee's paths: both outcomes go on from here.
      VS.Bits |= Released;
      VS.ReleasedAt = E.Loc;
    }
    return;
  }
  case EventKind::Move:
    VS.EverArrived |= E.ArrivesAfter;
    if (Out && E.ArrivesAfter && E.Callee && (VS.Bits & Live) && !(VS.Bits & Untracked) &&
        VS.MayArrived) {
      RawFinding R = findingAt(FindingKind::DoubleArrival, E);
      R.F.CallName = E.Callee->getNameAsString();
      R.F.OriginLoc = VS.ArrivedAt;
      Out->push_back(std::move(R));
    }
    reportUseAfter(E.Value, VS, false, E.Loc, Out);
    VS.Bits = Moved | Keep;
    VS.MovedAt = E.Loc;
    return;
  case EventKind::Escape:
    // A swap into untracked storage moves whatever the name holds: not a use of it.
    if (!(!E.BySwap && reportUseAfter(E.Value, VS, false, E.Loc, Out)) && ReportEscapes && Out &&
        (VS.Bits & Live) && !(VS.Bits & Untracked)) {
      RawFinding R = findingAt(FindingKind::Escape, E);
      R.F.Escape = E.Escape;
      Out->push_back(std::move(R));
    }
    VS.Bits = Untracked;
    return;
  case EventKind::HandOff:
    reportUseAfter(E.Value, VS, false, E.Loc, Out);
    VS.Bits = Untracked;
    return;
  case EventKind::Assign:
    reportNotReleased(E.Value, VS, ExitKind::Assignment, E.Loc, Out);
    acquire(E.Value, E.AssignInit, E.AssignSource, E.Loc, State);
    return;
  case EventKind::Swap: {
    // Trading places is not a use: a released or moved-from stage may be swapped. Untracked
    // describes a name (a reference to it escaped), not the stage in it: if either name is,
    // neither is followed after the trade.
    ValueState &Other = State.Values[E.SwapWith];
    const bool Escaped = (VS.Bits | Other.Bits) & Untracked;
    std::swap(VS, Other);
    VS.SwappedAt = Other.SwappedAt = E.Loc;
    if (Escaped)
      VS.Bits = Other.Bits = Untracked;
    return;
  }
  case EventKind::Report:
    return;
  }
}

void Solver::applyStmt(const Stmt *S, FlowState &State, std::vector<RawFinding> *Out) const {
  // A declaration acquires its variable once the initialiser has run.
  if (const auto *DS = dyn_cast<DeclStmt>(S)) {
    for (const Decl *D : DS->decls()) {
      for (unsigned V = 0; V < Values.size(); ++V) {
        if ((Values[V].Decl != D && Values[V].Owner != D) || Values[V].IsParameter)
          continue;
        acquire(V, Values[V].Init, Values[V].InitSource, Values[V].Decl->getLocation(), State);
      }
    }
  }
  auto It = EventsAt.find(S);
  if (It == EventsAt.end())
    return;
  for (const Event *E : It->second)
    applyEvent(*E, State, Out);
}

void Solver::endLifetime(const VarDecl *VD, const Stmt *Trigger, FlowState &State,
                         std::vector<RawFinding> *Out) const {
  for (unsigned V = 0; V < Values.size(); ++V) {
    // Parameters are checked where the function exits (see checkParametersAtExit).
    if ((Values[V].Decl != VD && Values[V].Owner != VD) || Values[V].IsParameter)
      continue;
    ValueState &VS = State.Values[V];
    auto [Exit, Loc] = exitOf(Trigger, BodyEnd);
    if (Values[V].IsSignalScope)
      reportScopeNeverSignalled(V, VS, Exit, Loc, Out);
    else
      reportNotReleased(V, VS, Exit, Loc, Out);
    VS = ValueState();
  }
}

FlowState Solver::transfer(const CFGBlock &B, FlowState S,
                           std::vector<RawFinding> *Out) const {
  if (!S.Reachable)
    return S;
  for (const CFGElement &El : B) {
    if (auto CS = El.getAs<CFGStmt>())
      applyStmt(CS->getStmt(), S, Out);
    else if (auto Dtor = El.getAs<CFGAutomaticObjDtor>())
      endLifetime(Dtor->getVarDecl(), Dtor->getTriggerStmt(), S, Out);
    else if (auto End = El.getAs<CFGLifetimeEnds>())
      endLifetime(End->getVarDecl(), End->getTriggerStmt(), S, Out);
  }
  // A path ending in a [[noreturn]] call (abort, trap, terminate) leaks nothing.
  if (B.hasNoReturnElement())
    S.Reachable = false;
  return S;
}

bool Solver::solve(unsigned MaxVisitsPerBlock) {
  Out.assign(G.getNumBlockIDs(), FlowState());
  for (FlowState &S : Out)
    S.Values.resize(Values.size());
  // Reverse post-order numbering, so the worklist visits predecessors first. Roots: the
  // entry, then each handler dispatch block (see isHandlerDispatch).
  std::vector<unsigned> Order(G.getNumBlockIDs(), ~0u);
  {
    std::vector<const CFGBlock *> Roots{&G.getEntry()};
    for (const CFGBlock *B : G)
      if (B && isHandlerDispatch(*B))
        Roots.push_back(B);
    std::vector<const CFGBlock *> Post;
    std::vector<std::pair<const CFGBlock *, CFGBlock::const_succ_iterator>> Stack;
    std::vector<bool> Seen(G.getNumBlockIDs(), false);
    for (const CFGBlock *Root : Roots) {
      if (Seen[Root->getBlockID()])
        continue;
      Stack.push_back({Root, Root->succ_begin()});
      Seen[Root->getBlockID()] = true;
      while (!Stack.empty()) {
        auto &[Block, It] = Stack.back();
        if (It == Block->succ_end()) {
          Post.push_back(Block);
          Stack.pop_back();
          continue;
        }
        const CFGBlock *Next = *It;
        ++It;
        if (Next && !Seen[Next->getBlockID()]) {
          Seen[Next->getBlockID()] = true;
          Stack.push_back({Next, Next->succ_begin()});
        }
      }
    }
    unsigned N = 0;
    for (auto It = Post.rbegin(); It != Post.rend(); ++It)
      Order[(*It)->getBlockID()] = N++;
  }
  std::vector<const CFGBlock *> ById(G.getNumBlockIDs(), nullptr);
  for (const CFGBlock *B : G)
    ById[B->getBlockID()] = B;
  std::set<std::pair<unsigned, unsigned>> Work; // (rpo index, block id)
  std::vector<unsigned> Visits(G.getNumBlockIDs(), 0);
  Work.insert({Order[G.getEntry().getBlockID()], G.getEntry().getBlockID()});
  for (const CFGBlock *B : G)
    if (B && isHandlerDispatch(*B))
      Work.insert({Order[B->getBlockID()], B->getBlockID()});
  while (!Work.empty()) {
    const unsigned Id = Work.begin()->second;
    Work.erase(Work.begin());
    const CFGBlock *B = ById[Id];
    if (!B)
      continue;
    if (++Visits[Id] > MaxVisitsPerBlock)
      return false;
    FlowState New = transfer(*B, inState(*B), nullptr);
    if (Visits[Id] > 1 && New == Out[Id])
      continue;
    Out[Id] = std::move(New);
    for (const CFGBlock *Succ : B->succs())
      if (Succ && Order[Succ->getBlockID()] != ~0u)
        Work.insert({Order[Succ->getBlockID()], Succ->getBlockID()});
  }
  return true;
}

void Solver::checkParametersAtExit(std::vector<RawFinding> &Found) const {
  const CFGBlock &Exit = G.getExit();
  for (const CFGBlock *Pred : Exit.preds()) {
    // Paths that end in a [[noreturn]] call or a throw do not return to the caller.
    if (!Pred || Pred->hasNoReturnElement() || endsInThrow(*Pred))
      continue;
    const FlowState &S = Out[Pred->getBlockID()];
    if (!S.Reachable)
      continue;
    ExitKind Kind = ExitKind::EndOfFunction;
    SourceLocation Loc = BodyEnd;
    for (const CFGElement &El : *Pred)
      if (auto CS = El.getAs<CFGStmt>())
        if (const auto *R = dyn_cast<ReturnStmt>(CS->getStmt())) {
          Kind = ExitKind::Return;
          Loc = R->getReturnLoc();
        }
    for (unsigned V = 0; V < Values.size(); ++V)
      if (Values[V].IsParameter)
        reportNotReleased(V, S.Values[V], Kind, Loc, &Found);
  }
}

FlowState Solver::exitState() const {
  FlowState S;
  S.Values.resize(Values.size());
  for (const CFGBlock *Pred : G.getExit().preds())
    if (Pred && !Pred->hasNoReturnElement() && !endsInThrow(*Pred))
      join(S, Out[Pred->getBlockID()], SM);
  return S;
}

std::vector<RawFinding> Solver::report() {
  std::vector<RawFinding> Found;
  for (const CFGBlock *B : G) {
    FlowState In = inState(*B);
    if (!In.Reachable)
      continue;
    Out[B->getBlockID()] = transfer(*B, std::move(In), &Found);
  }
  checkParametersAtExit(Found);
  return Found;
}

// Sorted by location; one report per identical finding, and only the first use
// after each release or move (later uses add nothing).
std::vector<Finding> finalize(std::vector<RawFinding> Raw, const SourceManager &SM) {
  // Stable without std::stable_sort: ties keep the order the replay found them in.
  std::vector<unsigned> Order(Raw.size());
  for (unsigned I = 0; I < Order.size(); ++I)
    Order[I] = I;
  std::sort(Order.begin(), Order.end(), [&](unsigned A, unsigned B) {
    const Finding &FA = Raw[A].F, &FB = Raw[B].F;
    if (FA.Loc != FB.Loc) {
      if (FA.Loc.isInvalid() || FB.Loc.isInvalid())
        return FA.Loc.isInvalid() && FB.Loc.isValid();
      return SM.isBeforeInTranslationUnit(FA.Loc, FB.Loc);
    }
    if (FA.Kind != FB.Kind)
      return static_cast<int>(FA.Kind) < static_cast<int>(FB.Kind);
    return A < B;
  });
  std::set<std::tuple<int, unsigned, unsigned, int, std::string, bool>> Seen;
  std::set<std::tuple<int, unsigned, bool>> UseAfterOrigins;
  std::vector<Finding> Result;
  for (unsigned I : Order) {
    RawFinding &R = Raw[I];
    const Finding &F = R.F;
    if (!Seen.insert({static_cast<int>(F.Kind), F.Loc.getRawEncoding(),
                      static_cast<unsigned>(F.Exit), R.Value, F.Name, F.Definite})
             .second)
      continue;
    if (F.Kind == FindingKind::UseAfter &&
        !UseAfterOrigins
             .insert({R.Value, F.OriginLoc.getRawEncoding(),
                      F.UseAfter == UseAfterKind::ReleasedTwice ||
                          F.UseAfter == UseAfterKind::ReleasedAfterMove})
             .second)
      continue;
    Result.push_back(std::move(R.F));
  }
  return Result;
}

} // namespace linpipe::tidy::flow
