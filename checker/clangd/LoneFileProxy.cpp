//===--- LoneFileProxy.cpp - linpipe-clangd -------------------------------===//
//
// See LoneFileProxy.h.
//
//===----------------------------------------------------------------------===//

#include "LoneFileProxy.h"
#include "LoneFile.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include <cstdio>
#include <thread>
#include <unistd.h>

namespace linpipe::clangd {

namespace {

bool writeAll(int Fd, llvm::StringRef Data) {
  while (!Data.empty()) {
    const ssize_t N = ::write(Fd, Data.data(), Data.size());
    if (N < 0)
      return false;
    Data = Data.drop_front(static_cast<size_t>(N));
  }
  return true;
}

// One LSP message: its header lines as they came, and its body.
bool readMessage(std::FILE *In, std::string &Headers, std::string &Body) {
  Headers.clear();
  size_t Length = 0;
  bool SawLength = false;
  char Line[512];
  while (std::fgets(Line, sizeof Line, In)) {
    llvm::StringRef L(Line);
    Headers += L.str();
    L = L.trim();
    if (L.empty()) {
      if (!SawLength)
        return false;
      Body.resize(Length);
      return std::fread(Body.data(), 1, Length, In) == Length;
    }
    if (L.starts_with_insensitive("content-length:"))
      SawLength = !L.drop_front(15).trim().getAsInteger(10, Length);
  }
  return false;
}

std::string frame(const llvm::json::Value &Message) {
  std::string Body = llvm::formatv("{0}", Message).str();
  return "Content-Length: " + std::to_string(Body.size()) + "\r\n\r\n" + Body;
}

// file:///a%20b/c.cpp -> /a b/c.cpp; empty for other schemes.
std::string pathOf(llvm::StringRef Uri) {
  if (!Uri.consume_front("file://"))
    return "";
  std::string Path;
  for (size_t I = 0; I < Uri.size(); ++I) {
    if (Uri[I] == '%' && I + 2 < Uri.size() && llvm::isHexDigit(Uri[I + 1]) &&
        llvm::isHexDigit(Uri[I + 2])) {
      Path += static_cast<char>(llvm::hexFromNibbles(Uri[I + 1], Uri[I + 2]));
      I += 2;
    } else {
      Path += Uri[I];
    }
  }
  return Path;
}

// The didChangeConfiguration to send ahead of \p Body, if it opens a lone linpipe file.
std::string commandFor(llvm::StringRef Body, const std::string &Tool, llvm::StringSet<> &Done) {
  // Most messages are not a didOpen (edits carry whole files): skip parsing those.
  if (!Body.contains("didOpen"))
    return "";
  llvm::Expected<llvm::json::Value> Message = llvm::json::parse(Body);
  if (!Message) {
    llvm::consumeError(Message.takeError());
    return "";
  }
  const llvm::json::Object *O = Message->getAsObject();
  if (!O || O->getString("method") != "textDocument/didOpen")
    return "";
  const llvm::json::Object *Params = O->getObject("params");
  const llvm::json::Object *Doc = Params ? Params->getObject("textDocument") : nullptr;
  const std::optional<llvm::StringRef> Uri = Doc ? Doc->getString("uri") : std::nullopt;
  const std::optional<llvm::StringRef> Text = Doc ? Doc->getString("text") : std::nullopt;
  const std::string File = Uri ? pathOf(*Uri) : "";
  if (File.empty() || !Text || Done.contains(File) || !importsLinpipe(*Text) ||
      hasCompileCommands(File))
    return "";
  Done.insert(File);
  llvm::errs() << "linpipe-clangd: " << File
               << " has no compile commands: asking linpipe-tidy for its module flags\n";
  llvm::Expected<std::vector<std::string>> Command = loneFileCommand(Tool, File);
  if (!Command) {
    llvm::errs() << "linpipe-clangd: " << llvm::toString(Command.takeError())
                 << "; clangd opens it without them\n";
    return "";
  }
  llvm::json::Object Change{
      {"workingDirectory", llvm::sys::path::parent_path(File)},
      {"compilationCommand", llvm::json::Array(*Command)}};
  llvm::json::Object Changes;
  Changes[File] = std::move(Change);
  return frame(llvm::json::Object{
      {"jsonrpc", "2.0"},
      {"method", "workspace/didChangeConfiguration"},
      {"params", llvm::json::Object{{"settings", llvm::json::Object{
                                                     {"compilationDatabaseChanges",
                                                      std::move(Changes)}}}}}});
}

void forward(std::FILE *Editor, int ToClangd, std::string Tool) {
  llvm::StringSet<> Done;
  std::string Headers, Body;
  while (readMessage(Editor, Headers, Body)) {
    const std::string Ahead = commandFor(Body, Tool, Done);
    if (!writeAll(ToClangd, Ahead) || !writeAll(ToClangd, Headers) || !writeAll(ToClangd, Body))
      break;
  }
  ::close(ToClangd); // clangd sees the editor's end of input
}

} // namespace

bool startLoneFileProxy(std::string Tool) {
  int Pipe[2];
  const int EditorFd = ::dup(0);
  if (EditorFd < 0 || ::pipe(Pipe) != 0)
    return false;
  std::FILE *Editor = ::fdopen(EditorFd, "rb");
  if (!Editor || ::dup2(Pipe[0], 0) < 0)
    return false;
  ::close(Pipe[0]);
  std::thread(forward, Editor, Pipe[1], std::move(Tool)).detach();
  return true;
}

} // namespace linpipe::clangd
