// A BoxWriter writes 64 columns (8 groups) of an accumulator at a time: an m64n16 accumulator
// (8 floats a thread) holds only 16 columns, and writing it would read past its end.
// EXPECT: BoxWriter::write: the accumulator's columns (N / 4 groups of 8) must fill whole 64-column boxes
import linpipe;

#ifdef LINPIPE_FIXED
constexpr int accumulators = 32;  // m64n64: one whole box
#else
constexpr int accumulators = 8;  // m64n16
#endif

__global__ void kernel() {
  __shared__ linpipe::SwizzledBox box;
  float acc[accumulators] = {};
  const linpipe::BoxWriter writer(linpipe::AccumulatorPlace(threadIdx.x % 128));
  writer.write(box, acc, 0);
}
