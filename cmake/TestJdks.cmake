# JDKs the integration tests run on. JDK 17 is required; JDK 25 is used when
# present and its tests report themselves as skipped (CTest SKIP) otherwise.
set(HPROF_JDK17_HOME "/usr/lib/jvm/java-17-openjdk-amd64" CACHE PATH "JDK 17 home for tests")
set(HPROF_JDK25_HOME "/usr/lib/jvm/temurin-25-jdk-amd64" CACHE PATH "JDK 25 home for tests")
set(HPROF_TEST_JDKS 17 25)
# Exit code a test driver uses to tell CTest it was skipped.
set(HPROF_SKIP_CODE 77)

# hprof_add_jdk_test(NAME <name> COMMAND <cmd...> [LABELS <labels>])
# Adds <name>_jdk17 and <name>_jdk25; in COMMAND the word @JAVA_HOME@ is
# replaced by the JDK home. A missing JDK 25 turns into a plain skip.
function(hprof_add_jdk_test)
  cmake_parse_arguments(T "" "NAME" "COMMAND;LABELS" ${ARGN})
  foreach(v ${HPROF_TEST_JDKS})
    set(home "${HPROF_JDK${v}_HOME}")
    set(cmd "")
    foreach(word ${T_COMMAND})
      string(REPLACE "@JAVA_HOME@" "${home}" word "${word}")
      list(APPEND cmd "${word}")
    endforeach()
    if(EXISTS "${home}/bin/java")
      add_test(NAME ${T_NAME}_jdk${v} COMMAND ${cmd})
    else()
      add_test(NAME ${T_NAME}_jdk${v}
        COMMAND sh -c "echo 'JDK ${v} not found at ${home}: test skipped'; exit ${HPROF_SKIP_CODE}")
    endif()
    set_tests_properties(${T_NAME}_jdk${v} PROPERTIES
      SKIP_RETURN_CODE ${HPROF_SKIP_CODE} LABELS "integration;jdk${v};${T_LABELS}")
  endforeach()
endfunction()
