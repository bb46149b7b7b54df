// codegen.hpp: everything of tessel's PTX code generator (the IR, the builder, the instruction
// families, the printer).
#pragma once

#include "tessel/codegen/async_copy.hpp"
#include "tessel/codegen/builder.hpp"
#include "tessel/codegen/ir.hpp"
#include "tessel/codegen/launch_plan.hpp"
#include "tessel/codegen/legalize.hpp"
#include "tessel/codegen/mbarrier.hpp"
#include "tessel/codegen/number_format.hpp"
#include "tessel/codegen/ptx.hpp"
#include "tessel/codegen/sync.hpp"
#include "tessel/codegen/types.hpp"
#include "tessel/codegen/warp.hpp"
#include "tessel/codegen/wgmma.hpp"
