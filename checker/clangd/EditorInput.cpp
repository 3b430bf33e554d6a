//===--- EditorInput.cpp - linpipe-clangd ---------------------------------===//
//
// See EditorInput.h.
//
//===----------------------------------------------------------------------===//

#include "EditorInput.h"
#include "EditorOutput.h"
#include "EditorSession.h"
#include "LoneFile.h"
#include "LspStream.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Path.h"
#include <chrono>
#include <fcntl.h>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <unistd.h>
#include <vector>

namespace linpipe::clangd {

namespace {

constexpr llvm::StringLiteral TokenPrefix = "linpipe-lone-file-";
// A warm cache answers in well under a second: only a longer wait is worth a notification.
constexpr std::chrono::milliseconds QuietWait{800};

std::optional<llvm::json::Object> parseObject(llvm::StringRef Body) {
  llvm::Expected<llvm::json::Value> Message = llvm::json::parse(Body);
  if (!Message) {
    llvm::consumeError(Message.takeError());
    return std::nullopt;
  }
  if (llvm::json::Object *O = Message->getAsObject())
    return std::move(*O);
  return std::nullopt;
}

// Notes what initialize says: a compilation database of the editor's (it then rules every
// file, as --compile-commands-dir does), progress support.
void noteInitialize(llvm::StringRef Body, Session &S) {
  if (!Body.contains("\"initialize\""))
    return;
  std::optional<llvm::json::Object> O = parseObject(Body);
  if (!O || O->getString("method") != "initialize")
    return;
  const llvm::json::Object *Params = O->getObject("params");
  const llvm::json::Object *Options = Params ? Params->getObject("initializationOptions") : nullptr;
  const llvm::json::Object *Capabilities = Params ? Params->getObject("capabilities") : nullptr;
  const llvm::json::Object *Window = Capabilities ? Capabilities->getObject("window") : nullptr;
  if (auto Database = Options ? Options->getString("compilationDatabasePath") : std::nullopt)
    S.DatabaseDir = Database->str();
  S.ClientProgress = Window && Window->getBoolean("workDoneProgress").value_or(false);
}

void sendProgress(const std::string &Token, llvm::json::Object Value) {
  sendToEditor(llvm::json::Object{{"jsonrpc", "2.0"},
                                  {"method", "$/progress"},
                                  {"params", llvm::json::Object{{"token", Token},
                                                                {"value", std::move(Value)}}}});
}

// Sends what the token's state allows next. Called with the session locked.
void advance(Session &S, const std::string &Token) {
  Progress &P = S.Tokens.at(Token);
  if (P.Created && !P.Begun) {
    P.Begun = true;
    sendProgress(Token, llvm::json::Object{
                            {"kind", "begin"},
                            {"title", "linpipe: building module interfaces"},
                            {"message", "for " + llvm::sys::path::filename(P.File).str() +
                                            " (first use of this compiler and these flags); "
                                            "other files are answered meanwhile"}});
  }
  if (P.Begun && P.Finished) {
    sendProgress(Token, llvm::json::Object{{"kind", "end"}, {"message", P.EndMessage}});
    S.Tokens.erase(Token);
  }
}

// The editor's answer to a progress token's creation: not clangd's business.
bool takeProgressReply(llvm::StringRef Body, Session &S) {
  if (!Body.contains(TokenPrefix))
    return false;
  std::optional<llvm::json::Object> O = parseObject(Body);
  if (!O || O->get("method"))
    return false;
  const std::optional<llvm::StringRef> Id = O->getString("id");
  if (!Id || !Id->starts_with(TokenPrefix))
    return false;
  const std::lock_guard<std::mutex> Lock(S.Lock);
  if (auto It = S.Tokens.find(Id->str()); It != S.Tokens.end()) {
    if (O->get("error")) { // refused: stay silent
      S.Tokens.erase(It);
    } else {
      It->second.Created = true;
      advance(S, Id->str());
    }
  }
  return true;
}

void announce(Session &S, const std::string &File, const std::string &Token) {
  const std::lock_guard<std::mutex> Lock(S.Lock);
  if (S.ClientProgress) {
    S.Tokens[Token].File = File;
    sendToEditor(llvm::json::Object{{"jsonrpc", "2.0"},
                                    {"id", Token},
                                    {"method", "window/workDoneProgress/create"},
                                    {"params", llvm::json::Object{{"token", Token}}}});
  } else {
    sendToEditor(llvm::json::Object{
        {"jsonrpc", "2.0"},
        {"method", "window/showMessage"},
        {"params", llvm::json::Object{
                       {"type", 3},
                       {"message", "linpipe: building module interfaces for " +
                                       llvm::sys::path::filename(File).str() +
                                       " (first use of this compiler and these flags); other "
                                       "files are answered meanwhile"}}}});
  }
}

// The didChangeConfiguration that gives clangd \p File's command.
std::string commandMessage(const std::string &File, const std::vector<std::string> &Command) {
  llvm::json::Object Changes;
  Changes[File] = llvm::json::Object{{"workingDirectory", llvm::sys::path::parent_path(File)},
                                     {"compilationCommand", llvm::json::Array(Command)}};
  return frame(llvm::json::Object{
      {"jsonrpc", "2.0"},
      {"method", "workspace/didChangeConfiguration"},
      {"params", llvm::json::Object{{"settings", llvm::json::Object{
                                                     {"compilationDatabaseChanges",
                                                      std::move(Changes)}}}}}});
}

// The body of startLoneCommand's thread.
void giveCommand(std::shared_ptr<Session> S, std::string Uri, std::string File,
                 std::string Token) {
  logLine("linpipe-clangd: " + File + " has no compile commands: asking linpipe-tidy for its module flags");
  std::future<llvm::Expected<std::vector<std::string>>> Pending =
      std::async(std::launch::async, [&] { return loneFileCommand(S->Tool, File); });
  const bool Slow = Pending.wait_for(QuietWait) != std::future_status::ready;
  if (Slow)
    announce(*S, File, Token);
  llvm::Expected<std::vector<std::string>> Command = Pending.get();
  std::string Outcome = "ready";
  if (!Command) {
    Outcome = llvm::toString(Command.takeError()) + "; clangd opens it without them";
    logLine("linpipe-clangd: " + Outcome);
    sendToEditor(llvm::json::Object{
        {"jsonrpc", "2.0"},
        {"method", "window/showMessage"},
        {"params", llvm::json::Object{{"type", 2}, {"message", "linpipe: " + Outcome}}}});
  }
  const std::lock_guard<std::mutex> Writing(S->Writing);
  std::vector<std::string> Messages;
  {
    const std::lock_guard<std::mutex> Lock(S->Lock);
    if (auto It = S->Held.find(Uri); It != S->Held.end()) {
      Messages = std::move(It->second);
      S->Held.erase(It);
    }
    if (auto It = S->Tokens.find(Token); It != S->Tokens.end()) {
      It->second.Finished = true;
      It->second.EndMessage = Outcome;
      advance(*S, Token);
    }
  }
  if (S->ToClangd < 0)
    return;
  if (Command)
    (void)writeAll(S->ToClangd, commandMessage(File, *Command));
  for (const std::string &Message : Messages)
    (void)writeAll(S->ToClangd, Message);
}

// The URI of a held file that \p Body is about, if any.
const std::string *heldFile(llvm::StringRef Body, const Session &S) {
  for (const auto &[Uri, Messages] : S.Held)
    if (Body.contains("\"" + Uri + "\""))
      return &Uri;
  return nullptr;
}

// If \p Body opens a lone file that imports linpipe: its URI and path.
std::optional<std::pair<std::string, std::string>> loneOpen(llvm::StringRef Body,
                                                            const Session &S) {
  // Most messages are not a didOpen (edits carry whole files): skip parsing those.
  if (!S.DatabaseDir.empty() || !Body.contains("didOpen"))
    return std::nullopt;
  std::optional<llvm::json::Object> O = parseObject(Body);
  if (!O || O->getString("method") != "textDocument/didOpen")
    return std::nullopt;
  const llvm::json::Object *Params = O->getObject("params");
  const llvm::json::Object *Doc = Params ? Params->getObject("textDocument") : nullptr;
  const std::optional<llvm::StringRef> Uri = Doc ? Doc->getString("uri") : std::nullopt;
  const std::optional<llvm::StringRef> Text = Doc ? Doc->getString("text") : std::nullopt;
  const std::string File = Uri ? pathOfUri(*Uri) : "";
  if (File.empty() || !Text || S.Done.contains(File) || !importsLinpipe(*Text) ||
      hasCompileCommands(File))
    return std::nullopt;
  return std::make_pair(Uri->str(), File);
}

void forwardEditor(int EditorFd, std::shared_ptr<Session> S) {
  LspReader In(EditorFd);
  std::string Headers, Body;
  while (In.read(Headers, Body)) {
    if (takeProgressReply(Body, *S))
      continue;
    const std::lock_guard<std::mutex> Writing(S->Writing);
    {
      const std::lock_guard<std::mutex> Lock(S->Lock);
      noteInitialize(Body, *S);
      if (const std::string *Uri = heldFile(Body, *S)) {
        S->Held[*Uri].push_back(Headers + Body);
        continue;
      }
      if (auto Lone = loneOpen(Body, *S)) {
        auto &[Uri, File] = *Lone;
        S->Done.insert(File);
        S->Held[Uri].push_back(Headers + Body);
        startLoneCommand(S, Uri, File);
        continue;
      }
    }
    if (!writeAll(S->ToClangd, Headers) || !writeAll(S->ToClangd, Body))
      break;
  }
  const std::lock_guard<std::mutex> Writing(S->Writing);
  ::close(S->ToClangd); // clangd sees the editor's end of input
  S->ToClangd = -1;
}

} // namespace

std::string pathOfUri(llvm::StringRef Uri) {
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

void startLoneCommand(const std::shared_ptr<Session> &S, const std::string &Uri,
                      const std::string &File) {
  std::thread(giveCommand, S, Uri, File, TokenPrefix.str() + std::to_string(S->NextToken++))
      .detach();
}

bool startEditorInput(std::string Tool, std::string DatabaseDir) {
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
  auto S = std::make_shared<Session>();
  S->ToClangd = Pipe[1];
  S->Tool = std::move(Tool);
  S->DatabaseDir = std::move(DatabaseDir);
  observeDiagnostics([S](const std::string &Uri, int64_t Version, bool MissingLinpipe) {
    noteModuleDiagnostics(S, Uri, Version, MissingLinpipe);
  });
  std::thread(forwardEditor, EditorFd, std::move(S)).detach();
  return true;
}

} // namespace linpipe::clangd
