"""One profiled run of a case script for pattern_matcher_check.py, in a fresh interpreter:
prints the matcher's lines per pattern as JSON.

    profile_case.py CASE"""
import json
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pattern_matcher_check  # noqa: E402

result = pattern_matcher_check.run_matcher(os.path.realpath(sys.argv[1]))
print(json.dumps({k: sorted(v) for k, v in result.items()}))
