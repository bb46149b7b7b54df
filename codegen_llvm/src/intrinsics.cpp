// intrinsics.cpp: the instructions LLVM's NVPTX backend has intrinsics for, called by their C++
// intrinsic IDs (a misspelled textual name would become an external call that only ptxas
// rejects): barriers and fences, mbarriers, TMA tensor copies and bulk groups, mapa, the wgmma
// fence/commit/wait, setmaxnreg, stmatrix, elect.sync and shfl.sync. Forms without an intrinsic
// (modifiers the intrinsics do not take) return false and go to inline PTX.
#include <llvm/IR/IntrinsicsNVPTX.h>

#include "lowering.hpp"
#include "tessel/algebra/error.hpp"

namespace tessel::codegen_llvm {

using codegen::Instr;
using codegen::Op;
using codegen::Operand;
using codegen::Space;
using codegen::Type;
namespace I = llvm::Intrinsic;

namespace {

I::ID tma_load_id(int rank) {
  static const I::ID ids[] = {I::nvvm_cp_async_bulk_tensor_g2s_tile_1d, I::nvvm_cp_async_bulk_tensor_g2s_tile_2d,
                              I::nvvm_cp_async_bulk_tensor_g2s_tile_3d, I::nvvm_cp_async_bulk_tensor_g2s_tile_4d,
                              I::nvvm_cp_async_bulk_tensor_g2s_tile_5d};
  return ids[rank - 1];
}

I::ID tma_store_id(int rank) {
  static const I::ID ids[] = {I::nvvm_cp_async_bulk_tensor_s2g_tile_1d, I::nvvm_cp_async_bulk_tensor_s2g_tile_2d,
                              I::nvvm_cp_async_bulk_tensor_s2g_tile_3d, I::nvvm_cp_async_bulk_tensor_s2g_tile_4d,
                              I::nvvm_cp_async_bulk_tensor_s2g_tile_5d};
  return ids[rank - 1];
}

I::ID tma_prefetch_id(int rank) {
  static const I::ID ids[] = {I::nvvm_cp_async_bulk_tensor_prefetch_tile_1d, I::nvvm_cp_async_bulk_tensor_prefetch_tile_2d,
                              I::nvvm_cp_async_bulk_tensor_prefetch_tile_3d, I::nvvm_cp_async_bulk_tensor_prefetch_tile_4d,
                              I::nvvm_cp_async_bulk_tensor_prefetch_tile_5d};
  return ids[rank - 1];
}

I::ID stmatrix_id(int n, bool trans) {
  if (n == 1) return trans ? I::nvvm_stmatrix_sync_aligned_m8n8_x1_trans_b16 : I::nvvm_stmatrix_sync_aligned_m8n8_x1_b16;
  if (n == 2) return trans ? I::nvvm_stmatrix_sync_aligned_m8n8_x2_trans_b16 : I::nvvm_stmatrix_sync_aligned_m8n8_x2_b16;
  return trans ? I::nvvm_stmatrix_sync_aligned_m8n8_x4_trans_b16 : I::nvvm_stmatrix_sync_aligned_m8n8_x4_b16;
}

}  // namespace

bool KernelLowering::intrinsic(const Instr& i) {
  using codegen::kAcquire;
  using codegen::kAligned;
  using codegen::kCluster;
  using codegen::kRelease;
  // Overloaded intrinsics (stmatrix's pointer) name their types; calling one without would crash LLVM.
  auto call = [&](I::ID id, std::vector<llvm::Value*> args, std::vector<llvm::Type*> types = {}) {
    if (types.empty() && I::isOverloaded(id)) refuse("the overloaded intrinsic " + I::getBaseName(id).str() + " without its types");
    return b.CreateIntrinsic(id, llvm::ArrayRef<llvm::Type*>(types), llvm::ArrayRef<llvm::Value*>(args));
  };
  auto u32 = [&](size_t j) { return src(i.ops.at(j), Type::U32); };
  auto imm = [&](size_t j) { return b.getInt32(static_cast<int32_t>(i.ops.at(j).imm)); };
  auto shared_ptr = [&](size_t j) { return pointer(i.ops.at(j), kShared); };
  auto tensor = [&](const Operand& t, std::vector<llvm::Value*>& args) {
    // [tensorMap, {c0, ...}]: the descriptor's generic address, then the coordinates.
    args.push_back(b.CreateIntToPtr(src(t.elems.at(0), Type::U64), b.getPtrTy(kGeneric)));
    const Operand& coords = t.elems.at(1);
    if (static_cast<int>(coords.elems.size()) != i.n || i.n < 1 || i.n > 5)
      refuse("a tensor copy of rank " + std::to_string(i.n) + " with " + std::to_string(coords.elems.size()) + " coordinates");
    for (const Operand& c : coords.elems) args.push_back(src(c, Type::S32));
  };
  switch (i.op) {
    case Op::BarSync:
      if (i.ops.size() == 1) {
        call(I::nvvm_barrier_cta_sync_aligned_all, {u32(0)});
      } else {
        call(I::nvvm_barrier_cta_sync_aligned_count, {u32(0), u32(1)});
      }
      return true;
    case Op::BarrierClusterArrive:  // .release is the default semantics of barrier.cluster.arrive
      if (i.has(codegen::kRelaxed))
        call(i.has(kAligned) ? I::nvvm_barrier_cluster_arrive_relaxed_aligned : I::nvvm_barrier_cluster_arrive_relaxed, {});
      else
        call(i.has(kAligned) ? I::nvvm_barrier_cluster_arrive_aligned : I::nvvm_barrier_cluster_arrive, {});
      return true;
    case Op::BarrierClusterWait:  // .acquire is the default of barrier.cluster.wait
      call(i.has(kAligned) ? I::nvvm_barrier_cluster_wait_aligned : I::nvvm_barrier_cluster_wait, {});
      return true;
    case Op::FenceProxyAsync:
      switch (i.space) {
        case Space::None:
          call(I::nvvm_fence_proxy_async, {});
          return true;
        case Space::Shared:
          call(I::nvvm_fence_proxy_async_shared_cta, {});
          return true;
        case Space::SharedCluster:
          call(I::nvvm_fence_proxy_async_shared_cluster, {});
          return true;
        case Space::Global:
          call(I::nvvm_fence_proxy_async_global, {});
          return true;
        default:
          return false;
      }
    case Op::FenceMbarrierInit:
      call(I::nvvm_fence_mbarrier_init_release_cluster, {});
      return true;
    case Op::TmaLoad: {
      // dst (shared::cluster), mbarrier, descriptor, coordinates, cta mask, cache hint, then the
      // flags: use the mask, use the hint, cta_group (0: none).
      std::vector<llvm::Value*> args{b.CreateAddrSpaceCast(shared_ptr(0), b.getPtrTy(kSharedCluster)), shared_ptr(2)};
      tensor(i.ops.at(1), args);
      const bool multicast = i.has(codegen::kMulticast);
      if (multicast != (i.ops.size() == 4)) refuse("a multicast tensor copy needs its cta mask, and only it");
      args.push_back(multicast ? src(i.ops.at(3), Type::U16) : b.getInt16(0));
      args.push_back(b.getInt64(0));
      args.push_back(b.getInt1(multicast));
      args.push_back(b.getFalse());
      args.push_back(b.getInt32(0));
      call(tma_load_id(i.n), args);
      return true;
    }
    case Op::TmaStore: {
      std::vector<llvm::Value*> args{shared_ptr(1)};
      tensor(i.ops.at(0), args);
      args.push_back(b.getInt64(0));
      args.push_back(b.getFalse());
      call(tma_store_id(i.n), args);
      return true;
    }
    case Op::TmaPrefetch: {
      // descriptor, coordinates, cache hint, then the flag: use the hint.
      std::vector<llvm::Value*> args;
      tensor(i.ops.at(0), args);
      args.push_back(b.getInt64(0));
      args.push_back(b.getFalse());
      call(tma_prefetch_id(i.n), args);
      return true;
    }
    case Op::BulkCommit:
      call(I::nvvm_cp_async_bulk_commit_group, {});
      return true;
    case Op::BulkWait:
      call(i.has(codegen::kRead) ? I::nvvm_cp_async_bulk_wait_group_read : I::nvvm_cp_async_bulk_wait_group, {imm(0)});
      return true;
    case Op::MbarInit:
      if (i.space == Space::SharedCluster || i.has(kCluster)) return false;
      call(I::nvvm_mbarrier_init_shared, {shared_ptr(0), u32(1)});
      return true;
    case Op::MbarArrive:
      if (i.space == Space::Shared && !i.has(kRelease) && !i.has(kCluster)) {
        dst(i.ops.at(0), call(I::nvvm_mbarrier_arrive_shared, {shared_ptr(1)}), Type::B64);
        return true;
      }
      if (i.space == Space::SharedCluster && !i.has(kRelease) && !i.has(kCluster) &&
          i.ops.at(0).kind == Operand::Kind::Sink) {
        // A remote arrive (one count) on a barrier of another block of the cluster, release at CTA scope.
        call(I::nvvm_mbarrier_arrive_scope_cta_space_cluster, {pointer(i.ops.at(1), kSharedCluster), b.getInt32(1)});
        return true;
      }
      return false;
    case Op::MbarArriveExpectTx:
      if (i.space != Space::Shared || i.has(kRelease) || i.has(kCluster)) return false;
      dst(i.ops.at(0), call(I::nvvm_mbarrier_arrive_expect_tx_scope_cta_space_cta, {shared_ptr(1), u32(2)}), Type::B64);
      return true;
    case Op::MbarTryWait: {
      if (i.has(kAcquire) != i.has(kCluster)) return false;  // .acquire.cluster, or the default (.acquire.cta)
      const I::ID id = i.has(kCluster) ? I::nvvm_mbarrier_try_wait_parity_scope_cluster_space_cta
                                       : I::nvvm_mbarrier_try_wait_parity_scope_cta_space_cta;
      dst(i.ops.at(0), call(id, {shared_ptr(1), u32(2)}), Type::Pred);
      return true;
    }
    case Op::Mapa: {
      if (i.type != Type::U32) return false;
      const unsigned bits = mod.getDataLayout().getPointerSizeInBits(kShared);
      llvm::Value* a = b.CreateIntToPtr(b.CreateZExtOrTrunc(u32(1), b.getIntNTy(bits)), b.getPtrTy(kShared));
      llvm::Value* r = call(I::nvvm_mapa_shared_cluster, {a, u32(2)});
      dst(i.ops.at(0), b.CreatePtrToInt(r, b.getInt32Ty()), Type::U32);
      return true;
    }
    case Op::WgmmaFence:
      call(I::nvvm_wgmma_fence_sync_aligned, {});
      return true;
    case Op::WgmmaCommit:
      call(I::nvvm_wgmma_commit_group_sync_aligned, {});
      return true;
    case Op::WgmmaWait:
      call(I::nvvm_wgmma_wait_group_sync_aligned, {b.getInt64(i.ops.at(0).imm)});
      return true;
    case Op::Setmaxnreg:
      call(i.has(codegen::kInc) ? I::nvvm_setmaxnreg_inc_sync_aligned_u32 : I::nvvm_setmaxnreg_dec_sync_aligned_u32,
           {imm(0)});
      return true;
    case Op::Stmatrix: {
      const Operand& frags = i.ops.at(1);
      if ((i.n != 1 && i.n != 2 && i.n != 4) || frags.kind != Operand::Kind::Vec || static_cast<int>(frags.elems.size()) != i.n)
        return false;
      std::vector<llvm::Value*> args{shared_ptr(0)};
      for (const Operand& f : frags.elems) args.push_back(src(f, Type::B32));
      call(stmatrix_id(i.n, i.has(codegen::kTrans)), args, {b.getPtrTy(kShared)});
      return true;
    }
    case Op::ElectSync: {
      const Operand& out = i.ops.at(0);
      if (out.kind != Operand::Kind::Pair) return false;
      llvm::Value* r = call(I::nvvm_elect_sync, {u32(1)});
      dst(out.elems.at(0), b.CreateExtractValue(r, 0), Type::B32);
      dst(out.elems.at(1), b.CreateExtractValue(r, 1), Type::Pred);
      return true;
    }
    case Op::Shfl: {
      I::ID id;
      switch (i.shfl) {
        case codegen::ShflMode::Up:
          id = I::nvvm_shfl_sync_up_i32;
          break;
        case codegen::ShflMode::Down:
          id = I::nvvm_shfl_sync_down_i32;
          break;
        case codegen::ShflMode::Bfly:
          id = I::nvvm_shfl_sync_bfly_i32;
          break;
        case codegen::ShflMode::Idx:
          id = I::nvvm_shfl_sync_idx_i32;
          break;
        default:
          return false;
      }
      dst(i.ops.at(0), call(id, {u32(4), src(i.ops.at(1), Type::B32), u32(2), u32(3)}), Type::B32);
      return true;
    }
    default:
      return false;
  }
}

}  // namespace tessel::codegen_llvm
