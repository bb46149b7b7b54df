// gemm/bound.hpp: the one-call GEMM's launches for one set of arguments (a choice's steps, checked,
// compiled, loaded and packed), and the same launches moved to other addresses of the same shape.
//
// A call with the shape key of the last one (gemm.cpp: layouts, each address modulo 16 bytes) but
// other addresses gets the last launches with every address in them moved by its tensor's
// displacement: a pointer parameter rewritten, a TMA descriptor encoded again at the moved address
// (encode_tensor_map_cached). Each such address was placed at bind time inside one tensor's bytes,
// from the granule holding its first byte (the views of C in lines start there): A, B, C, out or
// the workspace. The kernels' plans are linear in their tensors' addresses once the addresses'
// 16-byte residues are fixed; a host-path test checks moved launches byte for byte against fresh
// ones. Rebinding every step cost 6.5 to 8 us of host time per call on the device machine's CPU,
// more than a 2000 x 1500 x 1000 GEMM takes on the GPU (docs/performance.md, session 42).
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <vector>

#include "tessel/kernels/gemm.hpp"
#include "tessel/kernels/launch.hpp"
#include "tessel/runtime/tensor_map.hpp"

namespace tessel::kernels {

enum GemmRole { kRoleA, kRoleB, kRoleC, kRoleOut, kRoleWorkspace, kRoles };

// Each role's address in a call (C: only a C of its own; 0 where absent).
std::array<uint64_t, kRoles> gemm_role_addresses(const GemmArguments& g, uint64_t workspace);

// An address among a launch's parameters: a pointer parameter, or the address a descriptor was
// encoded at.
struct Relocation {
  uint32_t launch = 0, param = 0;
  uint8_t roles = 0;     // bit r: the address lay in role r's bytes at bind time
  uint64_t address = 0;  // at bind time
  int spec = -1;         // a descriptor: its spec in Relocations::specs; -1: a pointer
};

struct Relocations {
  std::array<uint64_t, kRoles> base{};  // each role's address at bind time (0: none)
  std::vector<Relocation> moves;
  std::vector<rt::TensorMapSpec> specs;
};

// What a launch reads beyond the shape key: the addresses, alpha and beta (and the workspace).
struct Bound {
  std::array<uint64_t, kRoles> addresses{};  // gemm_role_addresses of the arguments and workspace
  double alpha = 0, beta = 0;
  std::vector<ReadyLaunch> launches;               // the steps, packed
  std::shared_ptr<const Relocations> relocations;  // null: other addresses are bound again
  bool same(const GemmArguments& g, uint64_t w) const {
    return addresses == gemm_role_addresses(g, w) && alpha == g.alpha && beta == g.beta;
  }
};

// The launches of `choice`'s steps for these arguments (ready_gemm_launches), and where their
// addresses come from. Throws as ready_gemm_launches does.
std::shared_ptr<const Bound> bind_gemm(const GemmChoice& choice, const GemmArguments& args, uint64_t workspace);

// `last`'s launches moved to the addresses of `args`, which must have the shape key of the
// arguments `last` was bound for; null where they cannot be: an address of two tensors that moved
// apart (A and B once one buffer), alpha or beta changed, a C of its own that would overlap out
// (bind_gemm then checks every step again, and says why or copies C), or no relocations.
std::shared_ptr<const Bound> move_gemm(const Bound& last, const GemmArguments& args, uint64_t workspace);

}  // namespace tessel::kernels
