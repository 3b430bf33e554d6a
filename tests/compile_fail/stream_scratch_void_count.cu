// stream_scratch's typed form counts objects of T: asked for void with a count, it names the
// byte-sized form instead.
// EXPECT: stream_scratch(stream, tag, T**, count) counts objects of T: for bytes, call stream_scratch(stream, tag, bytes, void**)
import linpipe;

cudaError_t ask(cudaStream_t stream) {
  static const char tag = 0;
  void* memory = nullptr;
#ifdef LINPIPE_FIXED
  return linpipe::stream_scratch(stream, &tag, 64, &memory);
#else
  return linpipe::stream_scratch(stream, &tag, &memory, 64);
#endif
}
