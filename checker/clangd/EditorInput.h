//===--- EditorInput.h - linpipe-clangd -----------------------------------===//
//
// An editor talks to clangd over stdin. A thread sits between the two for what clangd's own
// start-up flags cannot say:
//  - A lone file that imports linpipe (no compile commands where clangd looks): before its
//    textDocument/didOpen, clangd gets a workspace/didChangeConfiguration carrying the file's
//    compile command from linpipe-tidy (clangd's compilationDatabaseChanges extension, the way
//    other LSP front ends hand clangd their commands). linpipe-tidy may take a minute to answer
//    (it builds linpipe's module interfaces on first use), so it is asked off the forwarding
//    thread: that file's messages are held back, in order, until its command is in, and every
//    other message goes on at once. A wait longer than a moment is shown in the editor
//    (work-done progress, else a message).
//  - A file whose import of linpipe did not resolve (EditorSession.h): rebuilt once the project's
//    build writes its module files, or, if the project's database lacks it, given linpipe-tidy's
//    command as a lone file is.
// Every other message is passed on unchanged and, per file, in order.
//
//===----------------------------------------------------------------------===//

#ifndef LINPIPE_CLANGD_EDITORINPUT_H
#define LINPIPE_CLANGD_EDITORINPUT_H

#include <string>

namespace linpipe::clangd {

/// Puts the forwarding thread in front of clangd's stdin (fd 0); \p Tool is linpipe-tidy and
/// \p DatabaseDir clangd's --compile-commands-dir (empty if none: lone files are then looked
/// for). False (and stdin untouched) if the pipe cannot be made.
bool startEditorInput(std::string Tool, std::string DatabaseDir);

} // namespace linpipe::clangd

#endif // LINPIPE_CLANGD_EDITORINPUT_H
