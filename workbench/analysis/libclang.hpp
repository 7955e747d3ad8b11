#pragma once
// libclang, loaded with dlopen at run time: the daemon and the CLI must start where libclang is
// absent (the GPU machine cannot carry it), and analysis then reports itself unavailable.
// Only the clang-c headers are used at build time; every function is resolved with dlsym into
// this table, so a missing symbol is an "unavailable" reason, never a failed program start.
#include <clang-c/Index.h>

#include <string>

#include "util/error.hpp"

namespace kwb::analysis {

// Every clang_* function the analyzer calls (name without the clang_ prefix).
#define KWB_LIBCLANG_FUNCTIONS(X)                                                                     \
  X(getClangVersion) X(getCString) X(disposeString) X(createIndex) X(disposeIndex)                     \
  X(parseTranslationUnit2) X(saveTranslationUnit) X(disposeTranslationUnit) X(getTranslationUnitCursor) \
  X(getNumDiagnostics) X(getDiagnostic) X(disposeDiagnostic) X(getDiagnosticSeverity)                  \
  X(getDiagnosticLocation) X(getDiagnosticSpelling) X(visitChildren) X(getCursorKind)                  \
  X(getCursorLocation) X(getCursorExtent) X(getFileLocation) X(getFileName) X(getFile)                 \
  X(getLocationForOffset) X(getRange) X(getRangeStart) X(getRangeEnd) X(Location_isFromMainFile)       \
  X(Location_isInSystemHeader) X(getCursorSpelling) X(getCursorType) X(getCanonicalType)               \
  X(getUnqualifiedType) X(getTypeSpelling) X(getPointeeType) X(isConstQualifiedType)                   \
  X(isVolatileQualifiedType) X(getArrayElementType) X(getNumArgTypes) X(getArgType)                    \
  X(getResultType) X(getCursorResultType) X(isFunctionTypeVariadic) X(getTypeDeclaration)              \
  X(Cursor_getNumArguments) X(Cursor_getArgument) X(getCursorReferenced) X(getCursorDefinition)        \
  X(isCursorDefinition) X(getCursorSemanticParent) X(Cursor_isInlineNamespace) X(Cursor_isAnonymous)   \
  X(Cursor_getMangling) X(Cursor_isNull) X(equalCursors) X(getCursorBinaryOperatorKind)                \
  X(getCursorUnaryOperatorKind) X(CXXMethod_isConst) X(Cursor_getStorageClass) X(getCursorTLSKind)     \
  X(getNumOverloadedDecls) X(getOverloadedDecl) X(tokenize) X(disposeTokens) X(getTokenKind)           \
  X(getTokenSpelling) X(getTokenLocation) X(getIncludedFile) X(Cursor_Evaluate) X(EvalResult_getKind) \
  X(EvalResult_getAsLongLong) X(EvalResult_dispose) X(Range_isNull)

struct Libclang {
#define KWB_LIBCLANG_MEMBER(name) decltype(&::clang_##name) name = nullptr;
  KWB_LIBCLANG_FUNCTIONS(KWB_LIBCLANG_MEMBER)
#undef KWB_LIBCLANG_MEMBER

  std::string path;     // the file dlopen accepted
  std::string version;  // clang_getClangVersion(), e.g. "Debian clang version 19.1.7 (3~deb12u1)"
  int major = 0;        // 19

  // Copies and disposes a CXString.
  std::string str(CXString s) const {
    const char* c = getCString(s);
    std::string out = c ? c : "";
    disposeString(s);
    return out;
  }
};

// The libraries tried, in order, when no path is configured.
inline constexpr const char* k_libclang_candidates[] = {"libclang-19.so.1", "libclang.so.1",
                                                       "/usr/lib/llvm-19/lib/libclang.so.1",
                                                       "/usr/lib/llvm-19/lib/libclang-19.so.1"};

// Loads libclang (once per distinct `path`; empty: the candidates above). Errors say what was
// tried and how to fix it. The library is never unloaded.
util::Result<const Libclang*> load_libclang(const std::string& path);

}  // namespace kwb::analysis
