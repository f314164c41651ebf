import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
# pmap tests run on 4 CPU devices; the runtime reads this when its client starts.
os.environ.setdefault("ASTJAX_NUM_CPU_DEVICES", "4")
sys.path.insert(0, os.path.dirname(__file__))
