# Included from workbench/CMakeLists.txt after kwb_module(analysis ...).
# libclang is loaded with dlopen at run time (analysis/libclang.cpp); only its C headers are
# needed to build. Debian: apt-get install libclang-19-dev.
find_path(KWB_CLANG_C_INCLUDE_DIR clang-c/Index.h
  HINTS /usr/lib/llvm-19/include /usr/lib/llvm-20/include /usr/lib/llvm-18/include /usr/lib/llvm-17/include
  DOC "Directory holding clang-c/Index.h (libclang-19-dev)")
if(NOT KWB_CLANG_C_INCLUDE_DIR)
  message(FATAL_ERROR "clang-c/Index.h not found: install the Debian package libclang-19-dev "
                      "(apt-get install libclang-19-dev) or pass -DKWB_CLANG_C_INCLUDE_DIR=<llvm>/include")
endif()
target_include_directories(kwb_analysis SYSTEM PRIVATE ${KWB_CLANG_C_INCLUDE_DIR})

# Analysis time against compile time for every shipped CPU kernel (docs/benchmarks/analysis.md).
add_executable(bench_analysis ${CMAKE_CURRENT_LIST_DIR}/bench/bench_analysis.cpp)
target_link_libraries(bench_analysis PRIVATE kwb_analysis kwb_spec kwb_util)
target_compile_definitions(bench_analysis PRIVATE KWB_BENCH_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
set_target_properties(bench_analysis PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/bin)

# The worker process that runs libclang for analysis::analyze() (analysis/worker_pool.cpp).
add_executable(kwb-analyzer ${CMAKE_CURRENT_LIST_DIR}/worker/main.cpp)
target_link_libraries(kwb-analyzer PRIVATE kwb_analysis)
set_target_properties(kwb-analyzer PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/bin)
add_dependencies(bench_analysis kwb-analyzer)

# `kwb` runs analyses through kwb-analyzer (found beside it): build them together. Deferred to the
# end of this directory, where the kwb target exists.
function(kwb_analyzer_beside_kwb)
  if(TARGET kwb)
    add_dependencies(kwb kwb-analyzer)
  endif()
endfunction()
cmake_language(DEFER CALL kwb_analyzer_beside_kwb)
