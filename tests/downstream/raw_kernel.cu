// Listed with plain add_executable when DOWNSTREAM_RAW_CU is on: the configure step must refuse
// it (a CXX-only project would silently not compile it), naming linpipe_target_cuda_sources.
import linpipe;

__global__ void noop() {}

int main() {
  noop<<<1, 1>>>();
  return 0;
}
