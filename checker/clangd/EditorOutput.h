//===--- EditorOutput.h - linpipe-clangd ----------------------------------===//
//
// clangd writes its LSP messages to stdout. linpipe-clangd puts a thread between clangd and the
// editor on that side too, for two things clangd cannot do itself:
//  - its own messages to the editor (a lone file's progress while linpipe's module interfaces
//    build), written whole between clangd's, never inside one;
//  - each linpipe finding's documentation link: clangd derives one for any clang-tidy check
//    from the check's name (a clang.llvm.org page, which linpipe's checks do not have); it is
//    pointed at the check's own page (checker/docs, installed in share/doc/linpipe/checks).
// Every other byte is passed on unchanged and in order.
//
//===----------------------------------------------------------------------===//

#ifndef LINPIPE_CLANGD_EDITOROUTPUT_H
#define LINPIPE_CLANGD_EDITOROUTPUT_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/JSON.h"
#include <cstdint>
#include <functional>
#include <string>

namespace linpipe::clangd {

/// Puts the forwarding thread between clangd's stdout (fd 1) and the editor; \p CheckDocs is the
/// folder of the checks' pages. False (and stdout untouched) if the pipe cannot be made.
bool startEditorOutput(std::string CheckDocs);

/// Sends \p Message to the editor between clangd's messages. Dropped when no proxy runs.
void sendToEditor(const llvm::json::Value &Message);

/// Called (on the output thread, nothing locked) for each textDocument/publishDiagnostics:
/// the document, its version and whether module 'linpipe' was not found.
using DiagnosticsObserver =
    std::function<void(const std::string &Uri, int64_t Version, bool MissingLinpipe)>;
void observeDiagnostics(DiagnosticsObserver Observer);

/// \p Body (a publishDiagnostics) with the hint added to "Module 'linpipe' not found"; sets
/// \p Uri, \p Version and \p MissingLinpipe from it. Unchanged if it is not one.
std::string withModuleHint(llvm::StringRef Body, std::string &Uri, int64_t &Version,
                           bool &MissingLinpipe);

/// Ends the session's output: everything clangd wrote reaches the editor before this returns
/// (bounded by a short wait if a child process still holds clangd's stdout).
void finishEditorOutput();

/// \p Body with each clang.llvm.org link of a linpipe check replaced by a file: link to the
/// check's page in \p CheckDocs, where that page exists.
std::string withCheckDocLinks(llvm::StringRef Body, llvm::StringRef CheckDocs);

/// The folder of the checks' pages: share/doc/linpipe/checks beside an installed \p Argv0's
/// prefix, else the source tree's checker/docs.
std::string checkDocsFolder(const char *Argv0);

} // namespace linpipe::clangd

#endif // LINPIPE_CLANGD_EDITOROUTPUT_H
