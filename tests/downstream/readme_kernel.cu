// README's first kernel in a user's Release build (NDEBUG: linpipe's debug checks off); the
// default preset builds and runs it with them on (tests/gpu/readme_kernel_test.cu). The kernel's
// text is that test's, between its README-KERNEL markers (tests/readme keeps README's copy equal),
// written by CMakeLists.txt to readme_kernel_body.inc.
import linpipe;

#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <random>
#include <vector>

#include "readme_kernel_body.inc"

int main() {
  std::printf("downstream_readme_kernel: debug checks %s\n", linpipe::debug_checks ? "on" : "off");
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("downstream_readme_kernel: built; no GPU here, not run\n");
    return 0;
  }
  constexpr int tiles = 37;
  std::vector<Tile> host(tiles), back(tiles);
  std::mt19937 random(37);
  for (Tile& tile : host)
    for (std::uint32_t& word : tile.words) word = random();
  Tile* in = nullptr;
  Tile* out = nullptr;
  cudaMalloc(&in, sizeof(Tile) * tiles);
  cudaMalloc(&out, sizeof(Tile) * tiles);
  cudaMemcpy(in, host.data(), sizeof(Tile) * tiles, cudaMemcpyHostToDevice);
  relay<2><<<1, 64>>>(in, out, tiles);
  const cudaError_t status = cudaDeviceSynchronize();
  cudaMemcpy(back.data(), out, sizeof(Tile) * tiles, cudaMemcpyDeviceToHost);
  int wrong = 0;
  for (int t = 0; t < tiles; ++t)
    for (int w = 0; w < 256; ++w) wrong += back[t].words[w] != host[t].words[w];
  std::printf("downstream_readme_kernel: %s, %d wrong words\n", cudaGetErrorString(status), wrong);
  return status == cudaSuccess && wrong == 0 ? 0 : 1;
}
