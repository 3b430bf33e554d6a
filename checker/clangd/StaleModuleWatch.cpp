//===--- StaleModuleWatch.cpp - linpipe-clangd ----------------------------===//
//
// A file opened before the project's first build shows "Module 'linpipe' not found", and
// clangd keeps that answer until the file is edited. Here its command's module inputs are
// looked at once a second; when they have changed and then held still (the build wrote them),
// clangd is asked to rebuild the file from scratch (didChange with no changes and clangd's
// forceRebuild). The watch ends when clangd publishes diagnostics without that error.
//
//===----------------------------------------------------------------------===//

#include "EditorSession.h"
#include "LspStream.h"
#include "llvm/Support/JSON.h"
#include <chrono>
#include <thread>
#include <vector>

namespace linpipe::clangd {

namespace {

constexpr std::chrono::seconds Tick{1};

std::string rebuildMessage(const std::string &Uri, int64_t Version) {
  return frame(llvm::json::Object{
      {"jsonrpc", "2.0"},
      {"method", "textDocument/didChange"},
      {"params", llvm::json::Object{
                     {"textDocument", llvm::json::Object{{"uri", Uri}, {"version", Version}}},
                     {"contentChanges", llvm::json::Array{}},
                     {"forceRebuild", true}}}});
}

void watch(std::shared_ptr<Session> S) {
  while (true) {
    std::this_thread::sleep_for(Tick);
    const std::lock_guard<std::mutex> Writing(S->Writing);
    std::vector<std::string> Rebuilds;
    {
      const std::lock_guard<std::mutex> Lock(S->Lock);
      if (S->Waits.empty() || S->ToClangd < 0) {
        S->Watching = false;
        return;
      }
      for (auto &[Uri, W] : S->Waits) {
        // Recomputed each time: a modmap written by the build names the interfaces to wait for.
        const std::string Now = fingerprint(moduleInputs(W.Command));
        if (Now != W.Seen) {
          W.Seen = Now;
          W.Changed = true;
        } else if (W.Changed) {
          W.Changed = false;
          logLine("linpipe-clangd: rebuilding " + W.File +
                  " (module 'linpipe' was not found; its module files may have been written since)");
          Rebuilds.push_back(rebuildMessage(Uri, W.Version));
        }
      }
    }
    for (const std::string &Message : Rebuilds)
      (void)writeAll(S->ToClangd, Message);
  }
}

} // namespace

void noteModuleDiagnostics(const std::shared_ptr<Session> &S, const std::string &Uri,
                           int64_t Version, bool MissingLinpipe) {
  const std::lock_guard<std::mutex> Lock(S->Lock);
  if (!MissingLinpipe) {
    S->Waits.erase(Uri);
    return;
  }
  if (auto It = S->Waits.find(Uri); It != S->Waits.end()) {
    It->second.Version = Version;
    return;
  }
  const std::string File = pathOfUri(Uri);
  if (File.empty())
    return;
  std::optional<ProjectCommand> Command = projectCommand(File, S->DatabaseDir);
  if (!Command) {
    // Not in the project's database (a source not yet in the build, or a lone file whose
    // command failed): linpipe-tidy's flags, once.
    if (!S->Done.contains(File)) {
      S->Done.insert(File);
      startLoneCommand(S, Uri, File);
    }
    return;
  }
  // Nothing seen yet: what clangd read is not known (the build may have written a file since),
  // so the first look counts as a change and, once the files hold still, rebuilds the file.
  ModuleWait W{File, Version, std::move(*Command), "", false};
  S->Waits.emplace(Uri, std::move(W));
  if (!S->Watching) {
    S->Watching = true;
    std::thread(watch, S).detach();
  }
}

} // namespace linpipe::clangd
