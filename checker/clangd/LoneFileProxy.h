//===--- LoneFileProxy.h - linpipe-clangd ---------------------------------===//
//
// An editor talks to clangd over stdin. Fallback flags are fixed at start-up and a lone file's
// command is only known once it is opened, so a thread sits between the editor and clangd: before
// a textDocument/didOpen of a lone file that imports linpipe, it sends clangd a
// workspace/didChangeConfiguration carrying that file's compile command (clangd's
// compilationDatabaseChanges extension, the way other LSP front ends hand clangd their
// commands). linpipe-tidy may take a minute to answer (it builds linpipe's module interfaces on
// first use), so it is asked off the forwarding thread: that file's messages are held back, in
// order, until its command is in, and every other message goes on at once. A wait longer than a
// moment is shown in the editor (work-done progress, else a message). Every message is passed on
// unchanged and, per file, in order.
//
//===----------------------------------------------------------------------===//

#ifndef LINPIPE_CLANGD_LONEFILEPROXY_H
#define LINPIPE_CLANGD_LONEFILEPROXY_H

#include <string>

namespace linpipe::clangd {

/// Puts the forwarding thread in front of clangd's stdin (fd 0); \p Tool is linpipe-tidy.
/// False (and stdin untouched) if the pipe cannot be made.
bool startLoneFileProxy(std::string Tool);

} // namespace linpipe::clangd

#endif // LINPIPE_CLANGD_LONEFILEPROXY_H
