//===--- ProxyFenceAnalysis.h - linpipe clang-tidy checks -------*- C++ -*-===//
//
// The proxy-fence rule of linpipe-stage-protocol. Generic stores (st.shared, from a thread's
// registers) and the bulk-copy/TMA engine (the async proxy) see shared memory through different
// proxies: a slot written by generic stores and then read by a bulk or TMA store, or
// overwritten by a bulk or TMA load, needs fence.proxy.async in between, or the engine may see
// stale bytes. Per function, along every path of the CFG:
//   * a generic write to a slot: an assignment, increment or non-const use (a non-const
//     pointer or reference argument, a non-const member call) of memory reached from a slot
//     accessor (`[[clang::annotate("linpipe::slot")]]`, e.g. PipelineStorage::operator[]), or
//     from a local pointer or reference initialised from one;
//   * a fence: a call annotated `linpipe::proxy_fence`;
//   * an async-proxy read or write: a call annotated `linpipe::async_proxy_read` (bulk and TMA
//     stores) or `linpipe::async_proxy_write` (bulk and TMA loads).
// An async-proxy access reached by a path with a generic write and no fence since is reported,
// with where the write happened. The library's StoreEpilogue fences inside, so code that stores
// through it is correct by construction.
//
//===----------------------------------------------------------------------===//

#ifndef LINPIPE_CHECKER_PROXYFENCEANALYSIS_H
#define LINPIPE_CHECKER_PROXYFENCEANALYSIS_H

#include "LinearDiagnostics.h"
#include "LinearTypeModel.h"
#include "clang/AST/ASTContext.h"
#include <vector>

namespace linpipe::tidy {

class ProxyFenceAnalysis {
public:
  ProxyFenceAnalysis(LinearTypeModel &Model, clang::ASTContext &Context)
      : Model(Model), Context(Context) {}

  /// The unfenced async-proxy accesses in \p FD's body, sorted by location.
  std::vector<Finding> analyze(const clang::FunctionDecl *FD);

private:
  LinearTypeModel &Model;
  clang::ASTContext &Context;
};

} // namespace linpipe::tidy

#endif // LINPIPE_CHECKER_PROXYFENCEANALYSIS_H
