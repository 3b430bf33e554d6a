// A wrapper used on a target below the SM it needs fails by name: wgmma needs sm_90a, and this
// file is built for plain sm_90, so ptxas stops on the gate's undefined function, whose name
// says the instruction and the SM (README: "the mistake fails at link time by name").
// COMPILE: object
// EXPECT: linpipe_ptx_wgmma_needs_SM_90a
import linpipe;

__global__ void kernel() {
#ifdef LINPIPE_FIXED
  linpipe::ptx::fence_proxy_async_shared_cta();  // SM_90: fine on sm_90
#else
  linpipe::ptx::wgmma_fence();
#endif
}
