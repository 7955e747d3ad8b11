# Runs the browser test with the pinned Node 22, or fails naming .ci/setup when it is missing.
if(NOT EXISTS "${NODE}")
  message(FATAL_ERROR "${NODE} is missing: run .ci/setup (it runs npm ci in tests/web) to install the pinned browser test tools")
endif()
execute_process(COMMAND "${NODE}" "${SCRIPT}" RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${SCRIPT}: exit ${rc}")
endif()
