// The proxy-fence rule: a slot written by generic stores and then read by a bulk or TMA store
// (or overwritten by a bulk or TMA load) needs fence.proxy.async in between, on every path.
// RUN: %check_linpipe -checks='-*,linpipe-stage-protocol' %s -- %stage_flags \
// RUN:   | FileCheck %s --check-prefix=CHECK-NOTES --implicit-check-not="{{warning|error|note}}:"
#include "stage_types.h"
using namespace lp;

// Bad: written in place, stored with no fence.
void storedWithoutFence(Ring &ring, Pipeline &pipe, float *out) {
  auto stage = pipe.acquire_consumer();
  Tile &tile = ring[stage];
  for (int i = 0; i < 256; ++i)
    tile.values[i] *= 2.0f;
  ptx::cp_async_bulk_shared_to_global(out, tile.values, sizeof(Tile));
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: 'cp_async_bulk_shared_to_global' reads slot memory that generic stores wrote on a path to it with no fence.proxy.async between: the copy engine may see stale bytes [linpipe-stage-protocol]
  // CHECK-NOTES: :[[@LINE-3]]:20: note: written by generic stores here
  // CHECK-NOTES: :[[@LINE-3]]:3: note: call linpipe::ptx::fence_proxy_async_shared_cta() after the writes (in every writing thread, then sync them) and before 'cp_async_bulk_shared_to_global', or store through linpipe::StoreEpilogue, which does both
  stage.release();
}

// Bad: the fence is on one branch only; the other path reaches the store unfenced.
void fencedOnOnePathOnly(Ring &ring, Pipeline &pipe, float *out, bool fast) {
  auto stage = pipe.acquire_consumer();
  fill(ring[stage].values, 256);
  if (!fast)
    ptx::fence_proxy_async_shared_cta();
  ptx::cp_async_bulk_shared_to_global(out, ring[stage].values, sizeof(Tile));
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: 'cp_async_bulk_shared_to_global' reads slot memory that generic stores wrote on a path to it with no fence.proxy.async between: the copy engine may see stale bytes [linpipe-stage-protocol]
  // CHECK-NOTES: :[[@LINE-5]]:8: note: written by generic stores here
  // CHECK-NOTES: :[[@LINE-3]]:3: note: call linpipe::ptx::fence_proxy_async_shared_cta() after the writes (in every writing thread, then sync them) and before 'cp_async_bulk_shared_to_global', or store through linpipe::StoreEpilogue, which does both
  stage.release();
}

// Bad: a slot cleared by generic code, then overwritten by a bulk load.
void loadedOverGenericWrites(Ring &ring, const float *in) {
  float *values = ring.slot(0).values;
  values[0] = 0.0f;
  ptx::cp_async_bulk_global_to_shared(values, in, sizeof(Tile));
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: 'cp_async_bulk_global_to_shared' overwrites slot memory that generic stores wrote on a path to it with no fence.proxy.async between: the copy engine may see stale bytes [linpipe-stage-protocol]
  // CHECK-NOTES: :[[@LINE-3]]:13: note: written by generic stores here
  // CHECK-NOTES: :[[@LINE-3]]:3: note: call linpipe::ptx::fence_proxy_async_shared_cta() after the writes (in every writing thread, then sync them) and before 'cp_async_bulk_global_to_shared'
}

// Bad: written at the end of one iteration, stored at the start of the next.
void writtenAcrossTheLoop(Ring &ring, float *out, int n) {
  for (int i = 0; i < n; ++i) {
    ptx::cp_async_bulk_shared_to_global(out, ring.slot(i % 2).values, sizeof(Tile));
    // CHECK-NOTES: :[[@LINE-1]]:5: warning: 'cp_async_bulk_shared_to_global' reads slot memory that generic stores wrote on a path to it with no fence.proxy.async between: the copy engine may see stale bytes [linpipe-stage-protocol]
    // CHECK-NOTES: :[[@LINE+2]]:22: note: written by generic stores here
    // CHECK-NOTES: :[[@LINE-3]]:5: note: call linpipe::ptx::fence_proxy_async_shared_cta() after the writes (in every writing thread, then sync them) and before 'cp_async_bulk_shared_to_global', or store through linpipe::StoreEpilogue, which does both
    ring.slot(i % 2).clear();
  }
}

// Good: written, fenced, stored.
void fencedThenStored(Ring &ring, Pipeline &pipe, float *out) {
  auto stage = pipe.acquire_consumer();
  Tile &tile = ring[stage];
  tile.values[0] = 1.0f;
  fill(tile.values + 1, 255);
  ptx::fence_proxy_async_shared_cta();
  ptx::cp_async_bulk_shared_to_global(out, tile.values, sizeof(Tile));
  stage.release();
}

// Good: only read by generic code (a const pointer, a const member) before the store.
void readThenStored(Ring &ring, Pipeline &pipe, float *out, float *sums) {
  auto stage = pipe.acquire_consumer();
  sums[0] = total(ring[stage].values, 256) + ring[stage].sum();
  out[ring[stage].values[0] > 0.0f] = 1.0f; // an index read from the slot is not slot memory
  ptx::cp_async_bulk_shared_to_global(out, ring[stage].values, sizeof(Tile));
  stage.release();
}

// Good: a bulk load into a slot nobody wrote, then generic reads.
void loadedThenRead(Ring &ring, const float *in, float *sums) {
  ptx::cp_async_bulk_global_to_shared(ring.slot(1).values, in, sizeof(Tile));
  sums[1] = ring.slot(1).sum();
}

// A helper with a non-const pointer that only reads through it writes nothing; one that
// writes through it does.
float peek(float *values) { return values[0] + values[1]; }
void scale(float *values) { values[0] *= 2.0f; }

// Good: only a read-only helper between the load and the store.
void readOnlyHelperThenStored(Ring &ring, float *out, float *sums) {
  sums[2] = peek(ring.slot(2).values);
  ptx::cp_async_bulk_shared_to_global(out, ring.slot(2).values, sizeof(Tile));
}

// Bad: a helper that writes through its pointer, then the store.
void writingHelperThenStored(Ring &ring, float *out) {
  scale(ring.slot(3).values);
  ptx::cp_async_bulk_shared_to_global(out, ring.slot(3).values, sizeof(Tile));
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: 'cp_async_bulk_shared_to_global' reads slot memory that generic stores wrote on a path to it with no fence.proxy.async between: the copy engine may see stale bytes [linpipe-stage-protocol]
  // CHECK-NOTES: :[[@LINE-3]]:9: note: written by generic stores here
  // CHECK-NOTES: :[[@LINE-3]]:3: note: call linpipe::ptx::fence_proxy_async_shared_cta() after the writes (in every writing thread, then sync them) and before 'cp_async_bulk_shared_to_global', or store through linpipe::StoreEpilogue, which does both
}
