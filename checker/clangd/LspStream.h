//===--- LspStream.h - linpipe-clangd -------------------------------------===//
//
// The LSP wire format as linpipe-clangd's two stream proxies need it: read one framed message
// from a file descriptor, frame one, and write all of it. Plain read(2)/write(2): a stdio FILE
// would hold its lock while blocked, and exit() (flushing every FILE) would then wait for the
// other side's next byte.
//
//===----------------------------------------------------------------------===//

#ifndef LINPIPE_CLANGD_LSPSTREAM_H
#define LINPIPE_CLANGD_LSPSTREAM_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/JSON.h"
#include <string>

namespace linpipe::clangd {

/// Reads framed messages from a file descriptor it does not own.
class LspReader {
 public:
  explicit LspReader(int Fd) : Fd(Fd) {}
  /// The next message: its header lines as they came and its body. False at end of input or
  /// on a malformed frame.
  bool read(std::string &Headers, std::string &Body);

 private:
  bool line(std::string &Out);
  bool bytes(std::string &Out, size_t N);
  bool next(char &C);
  int Fd;
  char Buffer[65536];
  size_t Begin = 0, End = 0;
};

/// \p Message with its Content-Length header.
std::string frame(const llvm::json::Value &Message);
std::string frameBody(llvm::StringRef Body);

/// Writes all of \p Data (retrying short writes); false on an error.
bool writeAll(int Fd, llvm::StringRef Data);

/// One line to clangd's log (stderr) in one write, so it does not interleave with clangd's own.
void logLine(const std::string &Text);

} // namespace linpipe::clangd

#endif // LINPIPE_CLANGD_LSPSTREAM_H
