"""The bucket timeline lab: DDP gradient buckets, the all-reduce stream and the exposed tail."""
