//===--- EditorOutput.cpp - linpipe-clangd --------------------------------===//
//
// See EditorOutput.h.
//
//===----------------------------------------------------------------------===//

#include "EditorOutput.h"
#include "LspStream.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Regex.h"
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <fcntl.h>
#include <mutex>
#include <optional>
#include <thread>
#include <unistd.h>

#ifndef LINPIPE_CHECK_DOCS_SOURCE
#error "LINPIPE_CHECK_DOCS_SOURCE must name checker/docs"
#endif

namespace linpipe::clangd {

namespace {

constexpr llvm::StringLiteral ClangTidyDocs = "https://clang.llvm.org/extra/clang-tidy/checks/";

// The proxy's state; one per process (clangd has one stdout).
struct Output {
  std::mutex Write;          // one whole message at a time on EditorFd
  std::atomic<int> EditorFd = -1;
  std::string CheckDocs;
  std::mutex Done;           // Observe, Finished
  DiagnosticsObserver Observe;
  std::condition_variable Drained;
  bool Finished = false;     // clangd's stdout reached its end
};

Output &output() {
  static Output *O = new Output; // never destroyed: a detached thread may still use it at exit
  return *O;
}

DiagnosticsObserver observer() {
  const std::lock_guard<std::mutex> Lock(output().Done);
  return output().Observe;
}

// file:// URI of an absolute path, percent-encoding all but unreserved characters and '/'.
std::string fileUri(llvm::StringRef Path) {
  std::string Uri = "file://";
  for (const char C : Path) {
    if (llvm::isAlnum(C) || llvm::StringRef("/-._~").contains(C))
      Uri += C;
    else
      Uri += "%" + llvm::utohexstr(static_cast<unsigned char>(C), false, 2);
  }
  return Uri;
}

void forwardClangd(int FromClangd) {
  Output &O = output();
  LspReader In(FromClangd);
  std::string Headers, Body;
  while (In.read(Headers, Body)) {
    // Reframed only when something changed: everything else goes out byte for byte.
    std::optional<std::string> Changed;
    std::string Uri;
    int64_t Version = 0;
    bool Missing = false;
    const bool Diagnostics = Body.find("textDocument/publishDiagnostics") != std::string::npos;
    if (Diagnostics) {
      std::string Hinted = withModuleHint(Body, Uri, Version, Missing);
      if (Missing)
        Changed = std::move(Hinted);
    }
    if (Body.find(ClangTidyDocs.str() + "linpipe/") != std::string::npos)
      Changed = withCheckDocLinks(Changed ? *Changed : Body, O.CheckDocs);
    {
      const std::lock_guard<std::mutex> Lock(O.Write);
      if (Changed ? !writeAll(O.EditorFd, frameBody(*Changed))
                  : !writeAll(O.EditorFd, Headers) || !writeAll(O.EditorFd, Body))
        break;
    }
    if (Diagnostics && !Uri.empty())
      if (const DiagnosticsObserver Observe = observer())
        Observe(Uri, Version, Missing);
  }
  ::close(FromClangd);
  const std::lock_guard<std::mutex> Lock(O.Done);
  O.Finished = true;
  O.Drained.notify_all();
}

} // namespace

std::string withModuleHint(llvm::StringRef Body, std::string &Uri, int64_t &Version,
                           bool &MissingLinpipe) {
  static const llvm::Regex NotFound("^[Mm]odule 'linpipe(:[A-Za-z0-9_]+)?' not found");
  MissingLinpipe = false;
  llvm::Expected<llvm::json::Value> Message = llvm::json::parse(Body);
  if (!Message) {
    llvm::consumeError(Message.takeError());
    return Body.str();
  }
  llvm::json::Object *O = Message->getAsObject();
  llvm::json::Object *Params = O ? O->getObject("params") : nullptr;
  if (!Params || O->getString("method") != "textDocument/publishDiagnostics")
    return Body.str();
  Uri = Params->getString("uri").value_or("").str();
  Version = Params->getInteger("version").value_or(0);
  if (llvm::json::Array *Diagnostics = Params->getArray("diagnostics"))
    for (llvm::json::Value &D : *Diagnostics) {
      llvm::json::Object *Diagnostic = D.getAsObject();
      std::optional<llvm::StringRef> Text = Diagnostic ? Diagnostic->getString("message")
                                                       : std::nullopt;
      if (!Text || !NotFound.match(*Text))
        continue;
      MissingLinpipe = true;
      (*Diagnostic)["message"] =
          Text->str() + ": linpipe's module interfaces are made by the project's build. Build it "
                        "once (cmake --build <build dir>); linpipe-clangd re-checks this file "
                        "when they are written";
    }
  return MissingLinpipe ? llvm::formatv("{0}", *Message).str() : Body.str();
}

std::string withCheckDocLinks(llvm::StringRef Body, llvm::StringRef CheckDocs) {
  // clangd's link for check `module-rest` is <ClangTidyDocs>module/rest.html.
  const std::string Prefix = ClangTidyDocs.str() + "linpipe/";
  std::string Out;
  while (true) {
    const size_t At = Body.find(Prefix);
    const size_t End = At == llvm::StringRef::npos ? At : Body.find(".html", At);
    if (End == llvm::StringRef::npos) {
      Out += Body;
      return Out;
    }
    const llvm::StringRef Check = Body.slice(At + Prefix.size(), End);
    llvm::SmallString<256> Page(CheckDocs);
    llvm::sys::path::append(Page, "linpipe-" + Check + ".md");
    Out += Body.take_front(At);
    if (!Check.contains('"') && llvm::sys::fs::exists(Page))
      Out += fileUri(Page);
    else
      Out += Body.slice(At, End + 5);
    Body = Body.drop_front(End + 5);
  }
}

std::string checkDocsFolder(const char *Argv0) {
  static int Anchor;
  // <prefix>/bin/linpipe-clangd -> <prefix>/share/doc/linpipe/checks
  llvm::SmallString<256> Installed(llvm::sys::path::parent_path(
      llvm::sys::path::parent_path(llvm::sys::fs::getMainExecutable(Argv0, &Anchor))));
  llvm::sys::path::append(Installed, "share", "doc", "linpipe", "checks");
  if (llvm::sys::fs::is_directory(Installed))
    return std::string(Installed);
  return LINPIPE_CHECK_DOCS_SOURCE;
}

bool startEditorOutput(std::string CheckDocs) {
  // Close-on-exec on every end but clangd's fd 1: processes clangd or linpipe-clangd start must
  // not hold the editor's stream or keep the pipe open.
  int Pipe[2];
  const int EditorFd = ::fcntl(1, F_DUPFD_CLOEXEC, 0);
  if (EditorFd < 0)
    return false;
  if (::pipe2(Pipe, O_CLOEXEC) != 0) {
    ::close(EditorFd);
    return false;
  }
  if (::dup2(Pipe[1], 1) < 0) {
    ::close(Pipe[0]);
    ::close(Pipe[1]);
    ::close(EditorFd);
    return false;
  }
  ::close(Pipe[1]);
  Output &O = output();
  O.EditorFd = EditorFd;
  O.CheckDocs = std::move(CheckDocs);
  std::thread(forwardClangd, Pipe[0]).detach();
  return true;
}

void observeDiagnostics(DiagnosticsObserver Observer) {
  const std::lock_guard<std::mutex> Lock(output().Done);
  output().Observe = std::move(Observer);
}

void sendToEditor(const llvm::json::Value &Message) {
  Output &O = output();
  if (O.EditorFd < 0)
    return;
  const std::lock_guard<std::mutex> Lock(O.Write);
  (void)writeAll(O.EditorFd, frame(Message));
}

void finishEditorOutput() {
  Output &O = output();
  if (O.EditorFd < 0)
    return;
  // Ends the pipe (fd 1 was its last writer, unless a child process inherited it). /dev/null,
  // not a closed fd, for clangd's stdout stream: its flush at exit must not fail.
  const int Null = ::open("/dev/null", O_WRONLY | O_CLOEXEC);
  if (Null < 0 || ::dup2(Null, 1) < 0)
    ::close(1);
  if (Null >= 0)
    ::close(Null);
  std::unique_lock<std::mutex> Lock(O.Done);
  O.Drained.wait_for(Lock, std::chrono::seconds(2), [&] { return O.Finished; });
}

} // namespace linpipe::clangd
