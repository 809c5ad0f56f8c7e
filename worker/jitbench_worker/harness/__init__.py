"""The harness side of the worker package: tools jitbench runs in processes of
their own, never inside a measured process (tests/test_architecture.py checks
that the worker's import closure reaches none of them):

  envs.py    the environment builder (`python -m jitbench_worker.harness.envs`)
  target.py  `jitbench measure`'s shim writer (`python -m jitbench_worker.harness.target shim`)
  door.py    the one door for what they write below a directory jitbench owns

They may import the worker's modules; no worker module imports them."""
