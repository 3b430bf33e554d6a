//===--- DefaultChecks.h - linpipe-clangd ---------------------------------===//
//
// clangd runs a clang-tidy check only if a config names it, and a check it does not know to be
// fast (any plugin check) only with FastCheckFilter Loose. Without a project .clangd the linpipe
// checks would never run, lone files included. clangd reads one user config file,
// $XDG_CONFIG_HOME/clangd/config.yaml; linpipe-clangd points it at a copy that starts with a
// fragment enabling the linpipe checks and then holds the user's own config unchanged, so the
// user's and every project's config still come later and win (`Remove: [linpipe-*]` turns them
// off).
//
//===----------------------------------------------------------------------===//

#ifndef LINPIPE_CLANGD_DEFAULTCHECKS_H
#define LINPIPE_CLANGD_DEFAULTCHECKS_H

#include "llvm/Support/Error.h"

namespace linpipe::clangd {

/// The fragment linpipe-clangd puts ahead of the user's config.
extern const char LinpipeConfigFragment[];

/// Writes the combined user config into linpipe-clangd's cache folder (one folder per
/// combined text) and sets
/// XDG_CONFIG_HOME to it (for this process and the clangd in it).
llvm::Error enableLinpipeChecksByDefault();

} // namespace linpipe::clangd

#endif // LINPIPE_CLANGD_DEFAULTCHECKS_H
