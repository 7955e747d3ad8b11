# Unity builds of the kwb executable and the larger modules (docs/benchmarks/ci.md): each target's
# sources are compiled in batches of up to 8 files per translation unit, so the heavy headers
# (CLI11, which emits ~120 KB of code into every file that includes it, nlohmann/json, fmt,
# httplib) are parsed and instantiated once per batch instead of once per file. Measured on the
# 2-core machine: the 23 files of `kwb` took 361 s of CPU one by one and 139 s in unity batches.
#
# -DKWB_UNITY_BUILD=OFF compiles file by file (what a one-file edit recompiles is then one file).
# A file whose file-local helpers clash with another file's (the same name in an anonymous
# namespace) is compiled on its own: listed below. A new clash shows up as a redefinition error
# in the unity build only; rename the helper or add the file here.
option(KWB_UNITY_BUILD "Compile the kwb executable and the larger modules in unity batches" ON)
if(NOT KWB_UNITY_BUILD)
  return()
endif()

set(kwb_unity_targets kwb kwb_eval kwb_api kwb_spec kwb_analysis kwb_library kwb_package kwb_build
    kwb_speccheck kwb_store kwb_core kwb_exec kwb_client)
foreach(t ${kwb_unity_targets})
  if(TARGET ${t})
    get_target_property(type ${t} TYPE)
    if(NOT type STREQUAL "INTERFACE_LIBRARY")
      set_target_properties(${t} PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE 8)
    endif()
  endif()
endforeach()

# Files with a file-local name that another file of the same target also defines.
set_source_files_properties(
  app/spec_add_command.cpp        # usage()
  app/status_command.cpp          # text()
  spec/shape_draw.cpp             # where_of()
  library/spec_intake.cpp         # Code
  build/nvcc_toolchain.cpp        # k_max_object_bytes
  build/nvrtc_cache.cpp           # k_salt
  store/tuning_repository.cpp     # k_select, read_row()
  PROPERTIES SKIP_UNITY_BUILD_INCLUSION ON)
