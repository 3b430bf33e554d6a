//===--- EditorSession.h - linpipe-clangd ---------------------------------===//
//
// What linpipe-clangd's input proxy knows about the editor's session, shared by the parts that
// act on it: lone files (EditorInput.cpp) and files waiting for the project's first build
// (StaleModuleWatch.cpp), and the two locks that order writes to clangd and guard the rest.
//
//===----------------------------------------------------------------------===//

#ifndef LINPIPE_CLANGD_EDITORSESSION_H
#define LINPIPE_CLANGD_EDITORSESSION_H

#include "ProjectCommand.h"
#include "llvm/ADT/StringSet.h"
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace linpipe::clangd {

// Progress of one lone file's command, reported with the editor's work-done progress when it
// has that capability: created (the editor answered window/workDoneProgress/create), then begun
// and ended in that order whatever order the answer and the command arrive in.
struct Progress {
  std::string File;
  bool Created = false, Begun = false, Finished = false;
  std::string EndMessage;
};

// An open file whose imports did not resolve, waiting for the build to write its module files.
struct ModuleWait {
  std::string File;
  int64_t Version = 0;
  ProjectCommand Command;
  std::string Seen;     // fingerprint of its module inputs at the last look
  bool Changed = false; // they changed at the last look: rebuild once they hold still
};

struct Session {
  // Held while deciding what to send clangd and sending it, so writes keep their order; taken
  // before Lock. The output thread never takes it: a write blocked on a full pipe to clangd
  // (clangd itself blocked on its stdout) must not stop the output thread, or both would wait.
  std::mutex Writing;
  int ToClangd = -1; // under Writing
  std::mutex Lock;   // everything below; held only briefly, never while writing to clangd
  std::string Tool;
  std::string DatabaseDir;     // --compile-commands-dir or the editor's compilationDatabasePath
  bool ClientProgress = false; // the editor shows server-initiated work-done progress
  llvm::StringSet<> Done;      // lone files already given a command (or being given one)
  // A lone file's messages held back, in order, until its command is in: clangd must parse it
  // with the module flags, and other files' messages must not wait behind it.
  std::map<std::string, std::vector<std::string>> Held;
  std::map<std::string, Progress> Tokens;
  unsigned NextToken = 0;
  std::map<std::string, ModuleWait> Waits; // by URI
  bool Watching = false;                   // the watch thread runs
};

/// Asks linpipe-tidy for \p File's command off the calling thread and gives it to clangd, then
/// lets the file's held messages (if any) through. Call with Lock held.
void startLoneCommand(const std::shared_ptr<Session> &S, const std::string &Uri,
                      const std::string &File);

/// clangd published diagnostics for \p Uri; \p MissingLinpipe: one says module 'linpipe' was
/// not found. A file in the project's database is rebuilt once the build writes its module
/// files; one the database lacks (a new source) gets linpipe-tidy's command.
void noteModuleDiagnostics(const std::shared_ptr<Session> &S, const std::string &Uri,
                           int64_t Version, bool MissingLinpipe);

/// file:///a%20b/c.cpp -> /a b/c.cpp; empty for other schemes.
std::string pathOfUri(llvm::StringRef Uri);

} // namespace linpipe::clangd

#endif // LINPIPE_CLANGD_EDITORSESSION_H
