//===--- LinpipeClangdMain.cpp - clangd with the linpipe checks linked in --===//
//
// clangd-22 cannot load clang-tidy plugins, so this executable is clangd itself (Debian's static
// clangd libraries) with the linpipe check sources compiled in. The checks register through the
// ClangTidyModuleRegistry::Add static in ../LinpipeTidyModule.cpp; that file is compiled into this
// executable as an object file (not pulled from an archive), so the linker keeps the registrar
// without an anchor symbol.
//
// Two things stock clangd lacks for linpipe users, both left to the user's own config to
// override: the linpipe checks run without a project .clangd (DefaultChecks.h), and a lone
// file that imports linpipe (no compile commands anywhere clangd looks) opens with the flags
// that make the import resolve, asked from linpipe-tidy (LoneFile.h): through the editor's
// session (EditorInput.h) or, for `--check=FILE`, through a one-entry compile_commands.json.
// In an editor's session, a file opened before the project's first build is re-checked once the
// build writes linpipe's module files (EditorInput.h), and on the way out findings link to the
// checks' own pages (EditorOutput.h).
//
// clangd locates the compiler's resource directory (builtin headers, CUDA wrappers) relative to its
// own executable. This one does not live next to clang, so the resource directory of the clang it
// was built against is passed unless the caller gives one.
//
//===----------------------------------------------------------------------===//

#include "DefaultChecks.h"
#include "EditorInput.h"
#include "EditorOutput.h"
#include "LoneFile.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#ifndef LINPIPE_CLANGD_RESOURCE_DIR
#error "LINPIPE_CLANGD_RESOURCE_DIR must name clang's resource directory"
#endif
#ifndef LINPIPE_VERSION
#error "LINPIPE_VERSION must name linpipe's version"
#endif

namespace clang::clangd {
int clangdMain(int argc, char *argv[]); // libclangdMain.a (clangd/tool/ClangdMain.cpp)
} // namespace clang::clangd

namespace {

bool startsWith(const char *Arg, const char *Prefix) {
  return std::strncmp(Arg, Prefix, std::strlen(Prefix)) == 0;
}

// `--check=FILE` on a lone file that imports linpipe: a folder holding a compile_commands.json
// with linpipe-tidy's command for it (empty if the file is not such a file, or on failure).
std::string loneCheckDatabase(const char *Argv0, llvm::StringRef File) {
  auto Source = llvm::MemoryBuffer::getFile(File);
  if (!Source || !linpipe::clangd::importsLinpipe((*Source)->getBuffer()) ||
      linpipe::clangd::hasCompileCommands(File))
    return "";
  llvm::SmallString<256> Absolute(File);
  llvm::sys::fs::make_absolute(Absolute);
  llvm::errs() << "linpipe-clangd: " << Absolute
               << " has no compile commands: asking linpipe-tidy for its module flags\n";
  auto Command = linpipe::clangd::loneFileCommand(linpipe::clangd::linpipeTidyPath(Argv0),
                                                  Absolute);
  llvm::SmallString<128> Dir;
  if (!Command || llvm::sys::fs::createUniqueDirectory("linpipe-clangd-check", Dir)) {
    llvm::errs() << "linpipe-clangd: "
                 << (Command ? std::string("cannot create a folder")
                             : llvm::toString(Command.takeError()))
                 << "; checking it without them\n";
    return "";
  }
  llvm::json::Array Entries{llvm::json::Object{
      {"directory", llvm::sys::path::parent_path(Absolute)},
      {"file", Absolute},
      {"arguments", llvm::json::Array(*Command)}}};
  llvm::SmallString<256> Database(Dir);
  llvm::sys::path::append(Database, "compile_commands.json");
  std::error_code EC;
  llvm::raw_fd_ostream Out(Database, EC);
  if (!EC) {
    Out << llvm::json::Value(std::move(Entries));
    Out.close();
  }
  if (EC || Out.has_error()) {
    Out.clear_error();
    llvm::errs() << "linpipe-clangd: cannot write " << Database << "; checking it without them\n";
    llvm::sys::fs::remove_directories(Dir);
    return "";
  }
  return std::string(Dir);
}

} // namespace

int main(int argc, char *argv[]) {
  std::vector<char *> args(argv, argv + argc);
  bool hasResourceDir = false, hasDatabaseDir = false, configOff = false, notServing = false;
  std::string databaseDir;
  const char *checkFile = nullptr;
  for (int i = 1; i < argc; ++i) {
    if (startsWith(argv[i], "--resource-dir") || startsWith(argv[i], "-resource-dir"))
      hasResourceDir = true;
    if (startsWith(argv[i], "--compile-commands-dir") || startsWith(argv[i], "-compile-commands-dir")) {
      hasDatabaseDir = true;
      if (const char *eq = std::strchr(argv[i], '='))
        databaseDir = eq + 1;
      else if (i + 1 < argc)
        databaseDir = argv[i + 1];
    }
    if (startsWith(argv[i], "--enable-config=") || startsWith(argv[i], "-enable-config=")) {
      const std::string value = llvm::StringRef(std::strchr(argv[i], '=') + 1).lower();
      configOff = value == "false" || value == "0";
    }
    if (startsWith(argv[i], "--check=") || startsWith(argv[i], "-check="))
      checkFile = std::strchr(argv[i], '=') + 1;
    // Not an editor's LSP stream on stdin: nothing to put a proxy in front of.
    if (startsWith(argv[i], "--input-style") || startsWith(argv[i], "-input-style") ||
        startsWith(argv[i], "--lit-test") || startsWith(argv[i], "-lit-test") ||
        std::strcmp(argv[i], "--check") == 0 || startsWith(argv[i], "--help") ||
        startsWith(argv[i], "-help") || std::strcmp(argv[i], "--version") == 0 ||
        std::strcmp(argv[i], "-version") == 0)
      notServing = true;
    // clangd's own version printer follows (and exits): say first which clangd this is.
    if (std::strcmp(argv[i], "--version") == 0 || std::strcmp(argv[i], "-version") == 0) {
      std::printf("linpipe-clangd %s: clangd with the linpipe-linear-stage and "
                  "linpipe-stage-protocol checks linked in\n",
                  LINPIPE_VERSION);
      std::fflush(stdout);  // before clangd's own lines, which bypass stdio
    }
  }
  static char resourceDirArg[] = "--resource-dir=" LINPIPE_CLANGD_RESOURCE_DIR;
  if (!hasResourceDir)
    args.insert(args.begin() + 1, resourceDirArg);
  if (!configOff)
    if (llvm::Error E = linpipe::clangd::enableLinpipeChecksByDefault())
      llvm::errs() << "linpipe-clangd: the linpipe checks are not on by default: "
                   << llvm::toString(std::move(E)) << "\n";

  std::string checkDatabase, checkDatabaseArg;
  if (checkFile && !hasDatabaseDir) {
    checkDatabase = loneCheckDatabase(argv[0], checkFile);
    if (!checkDatabase.empty()) {
      checkDatabaseArg = "--compile-commands-dir=" + checkDatabase;
      args.push_back(checkDatabaseArg.data());
    }
  }
  const bool serving = !checkFile && !notServing;
  if (serving && !linpipe::clangd::startEditorOutput(linpipe::clangd::checkDocsFolder(argv[0])))
    llvm::errs() << "linpipe-clangd: findings link to clang.llvm.org, not linpipe's pages, and "
                    "lone files build silently (cannot put a pipe after clangd)\n";
  if (serving &&
      !linpipe::clangd::startEditorInput(linpipe::clangd::linpipeTidyPath(argv[0]), databaseDir))
    llvm::errs() << "linpipe-clangd: lone files open without linpipe's module flags and files "
                    "opened before the first build are not re-checked after it (cannot put a "
                    "pipe in front of clangd)\n";
  llvm::scope_exit removeDatabase([&] {
    if (!checkDatabase.empty())
      llvm::sys::fs::remove_directories(checkDatabase);
  });
  args.push_back(nullptr);
  const int status = clang::clangd::clangdMain(static_cast<int>(args.size()) - 1, args.data());
  linpipe::clangd::finishEditorOutput();
  return status;
}
