# Sourced by the device scripts of issue 21 that run from the repository root on the GPU machine (runs 6, 7,
# 9, 14, 16-18): write_env (hw/device_env.sh) and the tile probes' counters, written once.
. hw/device_env.sh

# The tile probes' counters (collect_runs_6_to_9.TILE_METRICS reads them): shared ld/st instructions, hardware
# and SASS-instrumented address-level wavefronts, store conflicts, L1 fills, global load/store sectors,
# global load instructions, SM cycles, warps active, duration, DRAM throughput. Later runs add to it.
TILE_METRICS=smsp__sass_inst_executed_op_shared_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,\
smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,\
smsp__sass_inst_executed_op_shared_st.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,\
smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_st.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,\
l1tex__m_xbar2l1tex_read_sectors.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum,\
l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,smsp__sass_inst_executed_op_global_ld.sum,sm__cycles_elapsed.avg,\
sm__warps_active.avg.pct_of_peak_sustained_active,gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed
