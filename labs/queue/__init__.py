"""The fluid-queue lab: backlog under arrival rate λ and service rate μ, with an M/M/1 reference."""
