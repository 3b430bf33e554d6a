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
#include <cerrno>
#include <fcntl.h>
#include <memory>
#include <thread>
#include <unistd.h>

namespace linpipe::clangd {

namespace {

// One line to clangd's log (stderr) in one write, so it does not interleave with clangd's own.
void logLine(const std::string &Text) {
  const std::string Line = Text + "\n";
  (void)!::write(2, Line.data(), Line.size());
}

bool writeAll(int Fd, llvm::StringRef Data) {
  while (!Data.empty()) {
    const ssize_t N = ::write(Fd, Data.data(), Data.size());
    if (N < 0)
      return false;
    Data = Data.drop_front(static_cast<size_t>(N));
  }
  return true;
}

// The editor's side of the pipe, read with read(2): a stdio FILE would hold its lock while
// blocked, and exit() (flushing every FILE) would then wait for the editor's next byte.
class EditorInput {
 public:
  explicit EditorInput(int Fd) : Fd(Fd) {}
  // One header line, CRLF or LF included; false at end of input.
  bool line(std::string &Out) {
    Out.clear();
    for (char C; next(C);) {
      Out += C;
      if (C == '\n')
        return true;
    }
    return !Out.empty();
  }
  bool bytes(std::string &Out, size_t N) {
    Out.resize(N);
    for (size_t I = 0; I < N; ++I)
      if (!next(Out[I]))
        return false;
    return true;
  }

 private:
  bool next(char &C) {
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
  int Fd;
  char Buffer[65536];
  size_t Begin = 0, End = 0;
};

// One LSP message: its header lines as they came, and its body.
bool readMessage(EditorInput &In, std::string &Headers, std::string &Body) {
  Headers.clear();
  size_t Length = 0;
  bool SawLength = false;
  std::string Line;
  while (In.line(Line)) {
    Headers += Line;
    llvm::StringRef L = llvm::StringRef(Line).trim();
    if (L.empty())
      return SawLength && In.bytes(Body, Length);
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
struct ProxyState {
  std::string Tool;
  llvm::StringSet<> Done;       // lone files already given a command
  bool ClientDatabase = false;  // initialize named a compilation database: it rules every file
};

// Notes an initialize that names a compilation database (compilationDatabasePath).
void noteInitialize(llvm::StringRef Body, ProxyState &State) {
  if (!Body.contains("\"initialize\"") || !Body.contains("compilationDatabasePath"))
    return;
  llvm::Expected<llvm::json::Value> Message = llvm::json::parse(Body);
  if (!Message) {
    llvm::consumeError(Message.takeError());
    return;
  }
  const llvm::json::Object *O = Message->getAsObject();
  const llvm::json::Object *Params = O ? O->getObject("params") : nullptr;
  const llvm::json::Object *Options = Params ? Params->getObject("initializationOptions") : nullptr;
  if (O && O->getString("method") == "initialize" && Options &&
      Options->getString("compilationDatabasePath"))
    State.ClientDatabase = true;
}

std::string commandFor(llvm::StringRef Body, ProxyState &State) {
  noteInitialize(Body, State);
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
  if (State.ClientDatabase)
    return "";
  const llvm::json::Object *Params = O->getObject("params");
  const llvm::json::Object *Doc = Params ? Params->getObject("textDocument") : nullptr;
  const std::optional<llvm::StringRef> Uri = Doc ? Doc->getString("uri") : std::nullopt;
  const std::optional<llvm::StringRef> Text = Doc ? Doc->getString("text") : std::nullopt;
  const std::string File = Uri ? pathOf(*Uri) : "";
  if (File.empty() || !Text || State.Done.contains(File) || !importsLinpipe(*Text) ||
      hasCompileCommands(File))
    return "";
  State.Done.insert(File);
  logLine("linpipe-clangd: " + File + " has no compile commands: asking linpipe-tidy for its module flags");
  llvm::Expected<std::vector<std::string>> Command = loneFileCommand(State.Tool, File);
  if (!Command) {
    logLine("linpipe-clangd: " + llvm::toString(Command.takeError()) + "; clangd opens it without them");
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

void forward(int EditorFd, int ToClangd, std::string Tool) {
  ProxyState State;
  State.Tool = std::move(Tool);
  auto In = std::make_unique<EditorInput>(EditorFd);
  std::string Headers, Body;
  while (readMessage(*In, Headers, Body)) {
    const std::string Ahead = commandFor(Body, State);
    if (!writeAll(ToClangd, Ahead) || !writeAll(ToClangd, Headers) || !writeAll(ToClangd, Body))
      break;
  }
  ::close(ToClangd); // clangd sees the editor's end of input
}

} // namespace

bool startLoneFileProxy(std::string Tool) {
  // Close-on-exec: linpipe-tidy and what it runs must not hold either end of the editor's stream.
  int Pipe[2];
  const int EditorFd = ::fcntl(0, F_DUPFD_CLOEXEC, 0);
  if (EditorFd < 0)
    return false;
  if (::pipe2(Pipe, O_CLOEXEC) != 0 || ::dup2(Pipe[0], 0) < 0) {
    ::close(EditorFd);
    return false;
  }
  ::close(Pipe[0]);
  std::thread(forward, EditorFd, Pipe[1], std::move(Tool)).detach();
  return true;
}

} // namespace linpipe::clangd
