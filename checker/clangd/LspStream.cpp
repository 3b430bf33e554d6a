//===--- LspStream.cpp - linpipe-clangd -----------------------------------===//
//
// See LspStream.h.
//
//===----------------------------------------------------------------------===//

#include "LspStream.h"
#include "llvm/Support/FormatVariadic.h"
#include <cerrno>
#include <unistd.h>

namespace linpipe::clangd {

bool LspReader::read(std::string &Headers, std::string &Body) {
  Headers.clear();
  size_t Length = 0;
  bool SawLength = false;
  std::string Line;
  while (line(Line)) {
    Headers += Line;
    llvm::StringRef L = llvm::StringRef(Line).trim();
    if (L.empty())
      return SawLength && bytes(Body, Length);
    if (L.starts_with_insensitive("content-length:"))
      SawLength = !L.drop_front(15).trim().getAsInteger(10, Length);
  }
  return false;
}

bool LspReader::line(std::string &Out) {
  Out.clear();
  for (char C; next(C);) {
    Out += C;
    if (C == '\n')
      return true;
  }
  return !Out.empty();
}

bool LspReader::bytes(std::string &Out, size_t N) {
  Out.resize(N);
  for (size_t I = 0; I < N; ++I)
    if (!next(Out[I]))
      return false;
  return true;
}

bool LspReader::next(char &C) {
  if (Begin == End) {
    ssize_t N;
    do
      N = ::read(Fd, Buffer, sizeof Buffer);
    while (N < 0 && errno == EINTR);
    if (N <= 0)
      return false;
    Begin = 0;
    End = static_cast<size_t>(N);
  }
  C = Buffer[Begin++];
  return true;
}

std::string frameBody(llvm::StringRef Body) {
  return "Content-Length: " + std::to_string(Body.size()) + "\r\n\r\n" + Body.str();
}

std::string frame(const llvm::json::Value &Message) {
  return frameBody(llvm::formatv("{0}", Message).str());
}

bool writeAll(int Fd, llvm::StringRef Data) {
  while (!Data.empty()) {
    const ssize_t N = ::write(Fd, Data.data(), Data.size());
    if (N < 0 && errno == EINTR)
      continue;
    if (N < 0)
      return false;
    Data = Data.drop_front(static_cast<size_t>(N));
  }
  return true;
}

void logLine(const std::string &Text) {
  const std::string Line = Text + "\n";
  (void)!::write(2, Line.data(), Line.size());
}

} // namespace linpipe::clangd
