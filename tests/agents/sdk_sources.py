"""The kernels and names the SDK tests (test_sdk.py, sdk_calls.py) submit."""
import uuid

from daemon import SOURCE_DIR

VECTORIZED = (SOURCE_DIR / "kernels" / "vector_add" / "cpu" / "vectorized.cpp").read_text()
WRONG = ('#include <cstdint>\nextern "C" void kwb_vector_add_f32(const float* a, const float* b, float* c, int64_t n) '
         '{ for (int64_t i = 0; i < n; ++i) c[i] = a[i] * b[i]; }\n')
ENDLESS = (SOURCE_DIR / "tests" / "integration" / "cpu_cases" / "endless_loop.cpp").read_text()


def unique(tag: str) -> str:
    return f"{tag} {uuid.uuid4().hex[:8]}"
