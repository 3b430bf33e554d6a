//===--- FunctionSummaries.cpp - linpipe clang-tidy checks ----------------===//
//
// See FunctionSummaries.h.
//
//===----------------------------------------------------------------------===//

#include "FunctionSummaries.h"
#include "LinearFlowAnalysis.h"
#include "clang/Basic/SourceManager.h"

using namespace clang;

namespace linpipe::tidy {

std::optional<ParamSummary> SummaryCache::lookup(const FunctionDecl *Callee, unsigned ParamIdx) {
  const FunctionDecl *Def = nullptr;
  if (!Callee || !Callee->hasBody(Def) || !Def || ParamIdx >= Def->getNumParams())
    return std::nullopt;
  // The library's own members implement the protocol; a BMI's or a system header's bodies
  // are not this translation unit's code.
  const SourceManager &SM = Context.getSourceManager();
  if (Def->isFromASTFile() || Def->isDependentContext() || SM.isInSystemHeader(Def->getLocation()))
    return std::nullopt;
  // A virtual member may be overridden: the body here need not be the one called.
  if (const auto *MD = dyn_cast<CXXMethodDecl>(Def);
      MD && (Model.isLinearClass(MD->getParent()) || MD->isVirtual()))
    return std::nullopt;
  const auto Key = std::make_pair(Def, ParamIdx);
  if (auto It = Cache.find(Key); It != Cache.end())
    return It->second;
  if (Depth >= MaxDepth || InProgress.contains(Def))
    return std::nullopt; // not cached: a shallower or non-recursive path may summarise it
  InProgress.insert(Def);
  ++Depth;
  std::optional<ParamSummary> S = compute(Def, ParamIdx);
  --Depth;
  InProgress.erase(Def);
  Cache[Key] = S;
  return S;
}

std::optional<ParamSummary> SummaryCache::compute(const FunctionDecl *Def, unsigned ParamIdx) {
  LinearFlowAnalysis Analysis(Model, Context, /*ReportEscapes=*/false, this);
  return Analysis.summarize(Def, ParamIdx);
}

} // namespace linpipe::tidy
