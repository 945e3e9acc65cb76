// clLinkProgram's linker: separately compiled SPIR-V modules joined into one by spirv-link (from
// SPIRV-Tools, run in the front end's sandbox), so that two translation units may each define the
// same struct type, and a function declared in one is found in the other, as OpenCL C requires.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "gsgpu/compiler/frontend.h"

namespace gsgpu::compiler {

// At most this many modules in one link (clLinkProgram's inputs, and the units inside them).
inline constexpr size_t kMaxLinkedModules = 1024;

// The module as SPIR-V 1.0, the only version the device takes (CL_DEVICE_IL_VERSION) and the one
// spirv-val checks under OpenCL 1.2 rules: llvm-spirv-14 marks a module 1.4 as soon as it carries a
// NoSignedWrap / NoUnsignedWrap decoration, an optimisation hint with no effect on the code
// generator, so those decorations are dropped and the version set to 1.0. A module that uses
// anything else of a later version then fails validation (its log says what). Malformed input
// comes back unchanged, for the validator to refuse.
std::vector<uint32_t> as_spirv_1_0(std::span<const uint32_t> module);

// Links `modules` (each already valid, at most kMaxLinkedModules) into *out; `library` keeps the
// exported symbols (clLinkProgram -create-library), otherwise every import must be resolved.
// kCompileError with spirv-link's message in *log for duplicate or missing symbols;
// kToolMissing when spirv-link is not installed.
BuildStatus link_spirv(const std::vector<std::vector<uint32_t>>& modules, bool library, std::vector<uint32_t>* out,
                       std::string* log);

}  // namespace gsgpu::compiler
