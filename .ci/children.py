"""What the .ci checks share about the processes they start."""
import subprocess


def stop(processes):
    """Stops the processes a check started (and only those), each given 15 s to exit."""
    for process in processes:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
